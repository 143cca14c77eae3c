"""recall_of_newest, told each weight's k newest and k first written rows (and any tied with the k-th, as
cypher/observer_stream_newest.cypher gives them), ranks as recall over every row, or says it cannot tell: on random
streams with ties of tick within and across entries, no weight on recency, ages that make recency vanish, and rows
after `now`."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.stream.recall import recall, recall_of_newest
from graph_service.stream.rows import Observation


def stream(rng: random.Random, n: int, span: int) -> list[Observation]:
    """n rows of one observer, some entries writing several rows at one tick, weights from a few levels."""
    rows: list[Observation] = []
    seq = 0
    while len(rows) < n:
        seq += 1
        tick = rng.randrange(span)
        for slot in range(rng.choice([1, 1, 1, 2, 3])):
            rows.append(Observation(id=f"obs-{seq}-{slot}", observer="cam", tick=tick, kind="seen", subject="x",
                                    magnitude=0, weight=rng.choice([2, 3, 3, 8]), seq=seq, slot=slot))
    return rows


def newest_of_each_weight(rows: list[Observation], k: int) -> tuple[list[Observation], dict[int, int]]:
    """What the statement keeps (each weight's rows at or after the tick of its k-th newest, and those written by
    the entry of its k-th first written or before) and the cut (the weights it left rows out of, with that tick)."""
    kept: list[Observation] = []
    cut: dict[int, int] = {}
    for weight in {r.weight for r in rows}:
        mine = [r for r in rows if r.weight == weight]
        newest = sorted((r.tick for r in mine), reverse=True)[min(len(mine), k) - 1]
        first = sorted(r.seq for r in mine)[min(len(mine), k) - 1]
        chosen = [r for r in mine if r.tick >= newest or r.seq <= first]
        kept += chosen
        if len(chosen) < len(mine):
            cut[weight] = newest
    return kept, cut


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 80), span=st.sampled_from([3, 40, 5_000]),
       k=st.integers(0, 8), half_life=st.sampled_from([0.5, 10.0, 50.0]), w_recency=st.sampled_from([0.0, 1.0, 2.5]),
       w_importance=st.sampled_from([0.0, 1.0]), late=st.sampled_from([0, 0, 0, 5_000, 100_000]))
def test_it_ranks_as_recall_over_every_row_or_cannot_tell(seed: int, n: int, span: int, k: int, half_life: float,
                                                           w_recency: float, w_importance: float, late: int) -> None:
    rng = random.Random(seed)
    rows = stream(rng, n, span)
    now = max(r.tick for r in rows) + late if rng.random() < 0.9 else rng.randrange(span)  # some rows after now
    kept, cut = newest_of_each_weight(rows, max(k, 1))
    rng.shuffle(kept)  # the statement gives them in no particular order
    told = recall_of_newest(kept, cut, now, k, half_life, w_recency, w_importance)
    try:
        whole = recall(rows, now, k, half_life, w_recency, w_importance)
    except UserError:
        assert told is None  # a row after now: the whole read names the first one
        return
    assert told is None or told == whole


def test_it_tells_when_recency_falls_from_the_cut() -> None:
    rows = stream(random.Random(7), 200, 400)
    kept, cut = newest_of_each_weight(rows, 5)
    assert cut and len(kept) < len(rows)
    now = max(r.tick for r in rows)
    assert recall_of_newest(kept, cut, now, 5, 50.0, 1.0, 1.0) == recall(rows, now, 5, 50.0, 1.0, 1.0)


@pytest.mark.parametrize(("now_after", "w_recency"), [(0, 0.0), (10**9, 1.0)])
def test_it_tells_when_recency_does_not_move_the_score(now_after: int, w_recency: float) -> None:
    """No weight on recency, or ages at which it is too small to count: every row left out scores what its weight
    alone scores, and its weight's first written rows, kept, score as much and were written first."""
    rows = stream(random.Random(7), 200, 400)
    kept, cut = newest_of_each_weight(rows, 5)
    assert cut
    now = max(r.tick for r in rows) + now_after
    assert recall_of_newest(kept, cut, now, 5, 50.0, w_recency, 1.0) == recall(rows, now, 5, 50.0, w_recency, 1.0)


def test_it_cannot_tell_when_a_row_left_out_could_tie_above_its_weights_floor() -> None:
    """Recency small enough to tie neighbouring ticks but not to vanish: a row left out may tie the k-th score, and
    write order, which the rows kept do not show for it, would decide."""
    rows = [Observation(id=f"obs-{seq}-0", observer="cam", tick=tick, kind="seen", subject="x", magnitude=0,
                        weight=2, seq=seq) for seq, tick in enumerate([5, 6, 1, 2, 3, 4], start=1)]
    kept, cut = newest_of_each_weight(rows, 2)  # ticks 6 and 5, the first written 5 and 6: 1..4 left out
    assert cut == {2: 5} and len(kept) == 2
    # A weight of 1e-12 on a recency that falls by 7e-7 a tick: every row scores 0.2 + 1e-12, to the last place.
    scores = {r.score for r in recall(rows, 100, 6, 1e6, 1e-12, 1.0)}
    assert len(scores) == 1 and scores.pop() > 0.2
    assert recall_of_newest(kept, cut, 100, 2, 1e6, 1e-12, 1.0) is None


def test_bad_parameters_are_refused_as_recall_refuses_them() -> None:
    rows = stream(random.Random(3), 10, 40)
    kept, cut = newest_of_each_weight(rows, 2)
    with pytest.raises(UserError, match="half_life must be greater than 0"):
        recall_of_newest(kept, cut, 100, 2, 0.0, 1.0, 1.0)
    with pytest.raises(UserError, match="k must be a non-negative integer"):
        recall_of_newest(kept, cut, 100, -1, 50.0, 1.0, 1.0)
