"""ItemRecord's cached live assertions against the assertions they are read from."""

from __future__ import annotations

import dataclasses

import pytest

from graph_service.knowledge.records import Asserted

from .harness import Journal


def live_by_definition(assertions: tuple[Asserted, ...]) -> tuple:
    return tuple(a.assertion for a in assertions if a.retracted_at is None)


def test_live_follows_every_assertion_and_retraction_of_an_item() -> None:
    j = Journal()
    item = j.fact("pump", "state", "on")
    rec = j.state.items[item]
    assert len(rec.live()) == 1  # read once, so the cache holds it before anything changes
    j.fact("pump", "state", "on", source="outcome")
    assert [a.source for a in rec.live()] == ["person", "outcome"]
    j.retract(item)
    assert rec.live() == () == live_by_definition(rec.assertions)
    assert j.status(item) == "retracted"
    assert rec.facts(j.state.flags).assertions == ()
    assert rec.props is not None and rec.props["confirmed_at"] is None
    j.fact("pump", "state", "on", source="spec")
    assert [a.source for a in rec.live()] == ["spec"] and [a.source for a in rec.live()] == [
        a.source for a in live_by_definition(rec.assertions)
    ]
    assert j.status(item) == "active"


def test_a_premise_taken_back_is_dead_to_what_rests_on_it_at_once() -> None:
    # The dependent's evaluation reads the premise's liveness, cached before the retraction.
    j = Journal()
    premise = j.fact("pump", "state", "on")
    derived = j.fact("tank", "level", "rising", derived_from=[premise])
    assert j.status(derived) == "active"
    j.retract(premise)
    assert j.status(premise) == j.status(derived) == "retracted"


def test_a_record_with_other_assertions_reads_its_own() -> None:
    # What impact.py does: a copy with every assertion taken back shares nothing cached with the original.
    j = Journal()
    rec = j.state.items[j.fact("pump", "state", "on")]
    assert len(rec.live()) == 1
    taken = dataclasses.replace(rec, assertions=tuple(Asserted(a.assertion, 99) for a in rec.assertions))
    assert taken.live() == ()
    assert len(rec.live()) == 1


def test_assertions_cannot_be_changed_in_place_behind_the_cache() -> None:
    j = Journal()
    rec = j.state.items[j.fact("pump", "state", "on")]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.assertions[0].retracted_at = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        rec.assertions.append(rec.assertions[0])  # type: ignore[attr-defined]


def premises_by_definition(rec) -> list[str]:
    return list(dict.fromkeys(p for a in live_by_definition(rec.assertions) for p in a.premises))


def test_premises_follow_every_assertion_and_retraction_of_an_item() -> None:
    j = Journal()
    a, b = j.fact("pump", "state", "on"), j.fact("valve", "state", "open")
    item = j.fact("tank", "level", "rising", derived_from=[a])
    rec = j.state.items[item]
    assert rec.premises() == [a]  # read once, so the cache holds it before anything changes
    rec.premises().append("not a premise")  # what a caller does with its list stays its own
    j.fact("tank", "level", "rising", derived_from=[b, a], source="outcome")
    assert rec.premises() == [a, b] == premises_by_definition(rec)
    j.retract(item)
    assert rec.premises() == [] == premises_by_definition(rec)
    assert rec.premises(live_only=False) == [a, b]
    j.fact("tank", "level", "rising", derived_from=[b], source="spec")
    assert rec.premises() == [b] == premises_by_definition(rec)
