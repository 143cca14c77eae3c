"""RestingCounts counts what the level-by-level walk (knowledge.walks.downstream) finds below any set of items,
for many sets in turn over one memo, on random premise graphs with diamonds, shared tails and cycles."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.knowledge.walks import downstream
from graph_service.questions.resting import RestingCounts


def walked(ids: list[str], derived_from: dict[str, set[str]], *, with_ids: bool) -> int:
    found = set(downstream(ids, lambda node: sorted(derived_from.get(node, ()))))
    return len(found | set(ids)) if with_ids else len(found - set(ids))


def premise_graph(rng: random.Random, n: int, *, cycles: int) -> dict[str, set[str]]:
    """Items i0..i{n-1}, each derived from up to three earlier ones (diamonds and shared tails), and `cycles`
    edges from a later item back to an earlier one."""
    derived_from: dict[str, set[str]] = {}
    for i in range(1, n):
        for premise in rng.sample(range(i), min(i, rng.randint(0, 3))):
            derived_from.setdefault(f"i{premise}", set()).add(f"i{i}")
    for _ in range(cycles):
        later, earlier = sorted(rng.sample(range(n), 2), reverse=True)
        derived_from.setdefault(f"i{later}", set()).add(f"i{earlier}")
    return derived_from


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 60), cycles=st.sampled_from([0, 0, 1, 3, 10]),
       sets=st.integers(1, 25))
def test_counts_are_the_walks(seed: int, n: int, cycles: int, sets: int) -> None:
    rng = random.Random(seed)
    derived_from = premise_graph(rng, n, cycles=cycles)
    counts = RestingCounts()
    for _ in range(sets):  # one memo for every set, as a ranking counts its targets
        ids = [f"i{rng.randrange(n)}" for _ in range(rng.randint(1, 4))]
        with_ids = rng.random() < 0.5
        assert counts.count(ids, derived_from, with_ids=with_ids) == walked(ids, derived_from, with_ids=with_ids)


def test_a_diamond_counts_each_dependent_once() -> None:
    # a -> b, a -> c, b -> d, c -> d: d rests on a by two paths and is one item.
    derived_from = {"a": {"b", "c"}, "b": {"d"}, "c": {"d"}}
    counts = RestingCounts()
    assert counts.count(["a"], derived_from, with_ids=False) == 3
    assert counts.count(["b", "c"], derived_from, with_ids=False) == 1
    assert counts.count(["b", "c"], derived_from, with_ids=True) == 3
    assert counts.count(["a", "d"], derived_from, with_ids=False) == 2  # d is asked about, not resting
    assert counts.count(["d"], derived_from, with_ids=True) == 1


def test_edges_read_later_count_for_items_not_counted_before() -> None:
    counts = RestingCounts()
    derived_from: dict[str, set[str]] = {"a": {"b"}}
    assert counts.count(["a"], derived_from, with_ids=False) == 1
    derived_from["x"] = {"y", "z"}  # read for a later target
    assert counts.count(["x"], derived_from, with_ids=False) == 2
    assert counts.count(["a", "x"], derived_from, with_ids=True) == 5


def test_a_cycle_is_counted_as_the_walk_counts_it() -> None:
    derived_from = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}}
    counts = RestingCounts()
    assert counts.count(["a"], derived_from, with_ids=False) == 3  # b, c and d; a itself is asked about
    assert counts.count(["d"], derived_from, with_ids=False) == 0
    assert counts.count(["a"], derived_from, with_ids=True) == 4


def test_an_item_derived_from_itself_rests_on_itself() -> None:
    derived_from = {"a": {"a", "b"}, "c": {"a"}}
    counts = RestingCounts()
    assert counts.count(["c"], derived_from, with_ids=False) == 2  # a and b
    assert counts.count(["a"], derived_from, with_ids=False) == 1  # b; a itself is asked about
    assert counts.count(["a"], derived_from, with_ids=True) == 2
