"""The state rules: confirm, refute, supersede, dispute, resolve, premises and the retraction cascade."""

from __future__ import annotations

import pytest

from graph_service.errors import Conflict, NotFound, UserError
from graph_service.knowledge import planning, rebuild
from graph_service.knowledge.rules import LiveAssertion, Resolution, walk_key

from .harness import Journal


def exact_after_retraction(j: Journal, item_id: str) -> None:
    assert j.state.fingerprint() == rebuild(j.entries, skip={item_id}).fingerprint()


def test_same_value_confirms() -> None:
    j = Journal()
    a = j.fact("x", "colour", "red", source="spec")
    b = j.fact("x", "colour", "red", source="person", by="bob")
    assert a == b and j.status(a) == "active"
    assert j.state.disputes() == []


def test_outcome_refutes_the_current_value_even_an_outcome() -> None:
    j = Journal()
    red = j.fact("x", "colour", "red", source="outcome")
    blue = j.fact("x", "colour", "blue", source="outcome")
    assert (j.status(red), j.status(blue)) == ("refuted", "active")
    assert j.last.result["changes"] == {red: ("active", "refuted")}


def test_higher_rank_refutes_lower_and_lower_is_refuted_on_arrival() -> None:
    j = Journal()
    spec = j.fact("x", "size", 1, source="spec")
    person = j.fact("x", "size", 2, source="person")
    verified = j.fact("x", "size", 3, source="verified", of="decision-1")
    assert (j.status(spec), j.status(person), j.status(verified)) == ("refuted", "active", "refuted")


def test_supersedes_refutes_the_version_it_names_without_dispute() -> None:
    j = Journal()
    v1 = j.fact("model", "threshold", 0.5)
    v2 = j.fact("model", "threshold", 0.7, supersedes=v1)
    assert (j.status(v1), j.status(v2)) == ("refuted", "active")
    assert j.state.disputes() == []
    rule1 = j.add("rule", {"when": "a", "do": "b"})["id"]
    rule2 = j.add("rule", {"when": "a", "do": "c"}, supersedes=rule1)["id"]
    assert (j.status(rule1), j.status(rule2)) == ("refuted", "active")
    assert j.retract(rule2) == {rule2: ("active", "retracted"), rule1: ("refuted", "active")}
    exact_after_retraction(j, rule2)


def test_equal_ranks_dispute_with_one_question_per_event() -> None:
    j = Journal()
    red = j.fact("x", "colour", "red")
    blue = j.fact("x", "colour", "blue")
    assert (j.status(red), j.status(blue)) == ("disputed", "disputed")
    [dispute] = j.state.disputes()
    assert dispute["items"] == sorted([red, blue])
    assert "x colour" in dispute["question"]
    green = j.fact("x", "colour", "green")  # a third side joins the same dispute event
    [same] = j.state.disputes()
    assert same["id"] == dispute["id"] and green in same["items"]
    assert j.state.snapshot(about="x")["facts"] == []  # a disputed item is never a fact


def test_resolve_then_redispute_asks_again() -> None:
    j = Journal()
    red = j.fact("x", "colour", "red")
    blue = j.fact("x", "colour", "blue")
    [first] = j.state.disputes()
    changes = j.write(planning.plan_resolve(j.state, first["key"], "red", "looked"))
    assert changes == {red: ("disputed", "active"), blue: ("disputed", "refuted")}
    assert j.state.disputes() == []
    resolved = [n for n in j.last.projection.nodes if n.label == "Dispute"]
    assert resolved and resolved[0].props["open"] is False and resolved[0].props["resolved"] == '"red"'
    j.fact("x", "colour", "blue", by="carl")  # the same two items disputed again
    [second] = j.state.disputes()
    assert second["id"] != first["id"] and second["opened_at"] > first["opened_at"]
    assert (j.status(red), j.status(blue)) == ("disputed", "disputed")


def test_resolve_needs_an_open_dispute_and_one_of_its_values() -> None:
    j = Journal()
    red = j.fact("x", "colour", "red")
    key = j.state.items[red].key
    with pytest.raises(Conflict, match="no open dispute"):
        planning.plan_resolve(j.state, key, "red")
    j.fact("x", "colour", "blue")
    with pytest.raises(UserError, match="not one of the disputed values"):
        planning.plan_resolve(j.state, key, "green")


def test_outcome_ends_a_dispute() -> None:
    j = Journal()
    red = j.fact("x", "colour", "red")
    blue = j.fact("x", "colour", "blue")
    j.fact("x", "colour", "blue", source="outcome")
    assert (j.status(red), j.status(blue)) == ("refuted", "active")
    assert j.state.disputes() == []


def test_retraction_brings_back_what_it_refuted_or_disputed() -> None:
    j = Journal()
    person = j.fact("x", "size", 1)
    outcome = j.fact("x", "size", 2, source="outcome")
    assert j.retract(outcome) == {outcome: ("active", "retracted"), person: ("refuted", "active")}
    exact_after_retraction(j, outcome)
    other = j.fact("y", "size", 1)
    rival = j.fact("y", "size", 2)
    assert j.retract(rival) == {rival: ("disputed", "retracted"), other: ("disputed", "active")}
    assert j.state.disputes() == []
    exact_after_retraction(j, rival)


def test_cascade_over_a_diamond_returns_every_change() -> None:
    j = Journal()
    root = j.fact("r", "is", 1)
    left = j.fact("l", "is", 1, derived_from=[root])
    right = j.fact("q", "is", 1, derived_from=[root])
    bottom = j.fact("b", "is", 1, derived_from=[left, right])
    below = j.fact("c", "is", 1, derived_from=[bottom])
    unrelated = j.fact("u", "is", 1)
    changes = j.retract(root)
    assert changes == {i: ("active", "retracted") for i in (root, left, right, bottom, below)}
    assert j.status(unrelated) == "active"
    exact_after_retraction(j, root)


def test_an_item_with_another_live_support_survives_the_cascade() -> None:
    j = Journal()
    a = j.fact("a", "is", 1)
    b = j.fact("b", "is", 1)
    derived = j.fact("d", "is", 1, derived_from=[a])
    j.fact("d", "is", 1, derived_from=[b])  # the same item, supported a second way
    changes = j.retract(a)
    assert changes == {a: ("active", "retracted")}
    assert j.state.items[derived].props["support"] == [4]
    exact_after_retraction(j, a)


def test_refuted_premise_withdraws_support_and_hypothesis_premise_weakens() -> None:
    j = Journal()
    premise = j.fact("x", "size", 1)
    derived = j.fact("y", "size", 10, derived_from=[premise])
    j.fact("x", "size", 2, source="outcome")
    assert (j.status(premise), j.status(derived)) == ("refuted", "retracted")
    rule = j.add("rule", {"when": "z"}, shadow=None)["id"]
    j.write(planning.plan_reconfirm(j.state, rule, "check it"))
    on_rule = j.fact("z", "is", 1, derived_from=[rule])
    assert (j.status(rule), j.status(on_rule)) == ("hypothesis", "hypothesis")
    assert rule in j.state.items[on_rule].props["why"]


def test_retract_unknown_or_twice_is_refused() -> None:
    j = Journal()
    with pytest.raises(NotFound):
        planning.plan_retract(j.state, "k-missing")
    a = j.fact("a", "is", 1)
    j.retract(a)
    with pytest.raises(Conflict):
        planning.plan_retract(j.state, a)


def test_walk_key_is_a_pure_function() -> None:
    def said(seq: int, source: str) -> LiveAssertion:
        return LiveAssertion(seq=seq, source=source, by="x")

    verdicts, events = walk_key(
        "k",
        [(said(1, "person"), "a", "1"), (said(2, "person"), "b", "2"), (said(4, "spec"), "c", "3")],
        [Resolution(3, "2")],
        {},
    )
    assert verdicts == {"1": "refuted", "2": "held", "3": "refuted"}
    assert [(e.opened_at, e.closed_at, e.resolved) for e in events] == [(2, 3, "2")]
