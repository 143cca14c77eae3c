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
from graph_service.beliefs.confidence import (
    REPEAT_CAP,
    REPEAT_SHARE,
    BeliefTallies,
    EvidenceValue,
    FamilyTally,
    family_contribution,
    tally_counted,
)
from graph_service.beliefs.partial import tallies_of, value_of_tally
from graph_service.beliefs.projecting import tally_value
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
                          st.sampled_from(("for", "against")), st.booleans()), min_size=0, max_size=40),
       st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_a_belief_s_counts_by_value_give_the_tallies_of_its_live_rows(
        rows: list[tuple[float, str, str, str, str, bool]], seed: int) -> None:
    # What a write reads of a belief that collects evidence (its Tally nodes: how many live rows hold each value),
    # kept as rows come and go in any order; the tallies made of those counts are the live rows' own.
    made = [EvidenceRow(id=f"e{n}.1", belief="b1.1", direction=direction, weight=weight, credibility=0.9,
                        derivation=derivation, family=family, provenance_status=provenance, root_kind=None,
                        root_ids=(), origin="client", created_seq=n)
            for n, (weight, family, derivation, provenance, direction, _) in enumerate(rows, start=1)]
    kept = BeliefTallies()
    rnd = random.Random(seed)
    for one in rnd.sample(made, len(made)):
        kept.add_rows(one.as_value())
    gone = [one for one, (*_, retracted) in zip(made, rows, strict=True) if retracted]
    for one in rnd.sample(gone, len(gone)):
        kept.remove_row(one.as_value())
    live = [one for one, (*_, retracted) in zip(made, rows, strict=True) if not retracted]
    assert kept.counts == Counter(one.as_value() for one in live)
    # The counts as the graph keeps them, each value as canonical JSON and read back exactly.
    by_counts = tally_counted((value_of_tally(tally_value(value)), count) for value, count in kept.counts.items())
    by_rows = tallies_of(live)
    for tallies in (kept, by_counts):
        assert tallies.keys() == by_rows.keys()
        for key, tally in by_rows.items():
            other = tallies[key]
            assert (other.primary, other.derived, other.primary_sum, other.legacy_rows) == \
                (tally.primary, tally.derived, tally.primary_sum, tally.legacy_rows)


def test_taking_out_a_value_no_live_row_holds_is_refused() -> None:
    kept = BeliefTallies()
    value = EvidenceValue("f", "for", 0.5, 0.9, "direct")
    kept.add_rows(value)
    with pytest.raises(ValueError, match="no live row of value"):
        kept.remove_row(EvidenceValue("f", "for", 0.5, 0.9, "inference"))
    kept.remove_row(value)
    assert kept.counts == {} and not kept
    with pytest.raises(ValueError, match="no live row of value"):
        kept.remove_row(value)
