"""Family tallies: a belief re-evaluated from the tallies kept as rows come and go has exactly the
breakdown `assess` gives over its live rows from scratch, whatever order the rows came and went in."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.beliefs import assess
from graph_service.beliefs.confidence import REPEAT_CAP, REPEAT_SHARE, FamilyTally, family_contribution
from graph_service.beliefs.partial import tallies_of, tallies_of_counts
from graph_service.beliefs.records import EvidenceRow
from graph_service.errors import UserError

from .harness import Harness, row

values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def by_hand(primary: list[float], derived: list[float]) -> tuple[float, bool]:
    """The SPEC's rule, written out: the strongest primary row plus a quarter of the exact sum of the
    others, capped at 1.5 × the strongest; without primary rows, the strongest derived row."""
    if not primary:
        return max(derived), False
    strongest = max(primary)
    rest = sorted(primary)
    rest.remove(strongest)
    total = strongest + REPEAT_SHARE * math.fsum(rest)
    return (REPEAT_CAP * strongest, True) if total > REPEAT_CAP * strongest else (total, False)


@given(st.lists(st.tuples(values, st.booleans()), min_size=1, max_size=30), st.integers(0, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_a_tally_reached_by_any_path_is_the_rule_over_its_live_rows(rows: list[tuple[float, bool]],
                                                                    seed: int) -> None:
    rnd = random.Random(seed)
    tally = FamilyTally()
    live: list[tuple[float, bool]] = []
    pending = list(rows)
    while pending or live:
        # add rows in a random order and take random live ones out again, some for good
        if pending and (not live or rnd.random() < 0.6):
            value, primary = pending.pop(rnd.randrange(len(pending)))
            tally.add(value, primary=primary)
            live.append((value, primary))
        else:
            value, primary = live.pop(rnd.randrange(len(live)))
            tally.remove(value, primary=primary)
            if rnd.random() < 0.5:
                pending.append((value, primary))
        if live:
            primary_values = [v for v, p in live if p]
            derived_values = [v for v, p in live if not p]
            amount, capped, strongest = tally.contribution()
            assert (amount, capped) == by_hand(primary_values, derived_values)
            assert (amount, capped) == family_contribution(primary_values, derived_values)
            assert strongest == max(primary_values or derived_values)
        else:
            assert tally.empty


def test_taking_out_a_row_the_tally_does_not_hold_is_refused() -> None:
    tally = FamilyTally()
    tally.add(0.5, primary=True)
    with pytest.raises(ValueError, match=r"no derived row of value 0\.5"):
        tally.remove(0.5, primary=False)
    with pytest.raises(ValueError, match=r"no primary row of value 0\.25"):
        tally.remove(0.25, primary=True)
    assert tally.contribution() == (0.5, False, 0.5)


PROPOSITIONS = ("the pump is on", "the pump is not on", "the door is open", "the door is not open",
                "the valve leaks", "the valve never leaks")
FAMILIES = ("actor:ann", "actor:bo", "sensor:s1", "sensor:s2")
DERIVATIONS = ("direct", "inference", "testimony", "summary")


def assert_every_belief_is_its_rows_from_scratch(h: Harness) -> None:
    state = h.state
    for belief in state.beliefs.values():
        live = [state.rows[r].as_value() for r in belief.evidence if not state.rows[r].retracted]
        assert belief.breakdown == assess(belief.epistemic_kind, live), belief.id


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_beliefs_kept_by_tallies_equal_assess_over_their_live_rows(seed: int) -> None:
    """Random writes that add, retract, re-weigh (contradiction partners' counter rows), drop and bring
    back rows; after every one, each belief equals `assess` over its live rows."""
    rnd = random.Random(seed)
    h = Harness()
    beliefs: list[str] = []
    gone: set[str] = set()
    for _ in range(60):
        roll = rnd.random()
        try:
            if roll < 0.3 or not beliefs:
                rows = [row(round(rnd.uniform(0, 1), 3), rnd.choice(FAMILIES), derivation=rnd.choice(DERIVATIONS),
                            credibility=round(rnd.uniform(0.2, 1), 2),
                            **({"root_kind": "item", "root_ids": [f"i{rnd.randrange(5)}"]} if rnd.random() < 0.4
                               else {}))
                        for _ in range(rnd.randint(0, 3))]
                beliefs.append(h.create(f"{rnd.choice(PROPOSITIONS)} {rnd.randrange(3)}", *rows))
            elif roll < 0.6:
                h.do("evidence.add", {"belief": rnd.choice(beliefs),
                                      **row(round(rnd.uniform(0, 1), 3), rnd.choice(FAMILIES),
                                            derivation=rnd.choice(DERIVATIONS),
                                            direction=rnd.choice(("for", "for", "against")))})
            elif roll < 0.75:
                live = [r.id for r in h.state.rows.values() if not r.retracted and r.origin == "client"]
                if live:
                    h.do("evidence.retract", {"evidence": rnd.choice(live), "reason": "test"})
            elif roll < 0.85:
                item = f"i{rnd.randrange(5)}"
                gone.add(item)
                h.items_retracted(item)
            elif roll < 0.95 and gone:
                item = gone.pop()
                entry = h.entry("item.add", {"ids": [item]}, "system")
                h.applied.append(h.state.roots_back("item", [item], entry, lambda kind, r: r not in gone))
            else:
                a, b = rnd.sample(beliefs, 2) if len(beliefs) > 1 else (beliefs[0], beliefs[0])
                h.do("belief.contradict", {"a": a, "b": b})
        except UserError:
            pass  # refused as planned (a duplicate proposition, a self-contradiction): nothing applied
        assert_every_belief_is_its_rows_from_scratch(h)
    assert h.state.rows, "the run wrote no evidence"


def test_a_counter_row_reweighed_moves_its_tally() -> None:
    """A contradiction partner's counter row follows the other belief's confidence (SPEC 3.4)."""
    h = Harness()
    a = h.create("the pump is on", row(0.5, "actor:ann"))
    b = h.create("the pump is not on", row(0.3, "actor:bo"))
    counter = next(r for r in h.state.rows.values() if r.belief == b and r.family == f"belief:{a}")
    first = counter.weight
    h.do("evidence.add", {"belief": a, **row(0.9, "sensor:s1")})
    assert counter.weight != first  # the run reached the re-weighing it is about
    assert_every_belief_is_its_rows_from_scratch(h)


@given(st.lists(st.tuples(st.sampled_from((0.1, 0.3, 0.7, 1.0 / 3)), st.sampled_from(("f", "g")),
                          st.sampled_from(("direct", "inference")), st.sampled_from(("recorded", "legacy_unknown")),
                          st.sampled_from(("for", "against"))), min_size=0, max_size=40))
@settings(max_examples=200, deadline=None)
def test_a_belief_s_rows_counted_by_their_numbers_give_the_tallies_of_the_rows_themselves(
        rows: list[tuple[float, str, str, str, str]]) -> None:
    # What a write reads of a belief that collects evidence (beliefs_counted_now): one row of each set of live rows
    # sharing what the arithmetic reads, and how many share it; the tallies made of that are the rows' own.
    made = [EvidenceRow(id=f"e{n}.1", belief="b1.1", direction=direction, weight=weight, credibility=0.9,
                        derivation=derivation, family=family, provenance_status=provenance, root_kind=None,
                        root_ids=(), origin="client", created_seq=n)
            for n, (weight, family, derivation, provenance, direction) in enumerate(rows, start=1)]
    counted = Counter(row.as_value() for row in made)
    first = {value: next(row for row in made if row.as_value() == value) for value in counted}
    by_counts = tallies_of_counts((first[value], count) for value, count in counted.items())
    by_rows = tallies_of(made)
    assert by_counts.keys() == by_rows.keys()
    for key, tally in by_rows.items():
        other = by_counts[key]
        assert (other.primary, other.derived, other.primary_sum, other.legacy_rows) == \
            (tally.primary, tally.derived, tally.primary_sum, tally.legacy_rows)
