"""Items: content ids, keys, shape checks, the source gate, refusals and holds journalled."""

from __future__ import annotations

import pytest

from graph_service.errors import Conflict, NotFound, UserError
from graph_service.knowledge import ops, planning
from graph_service.knowledge.gates import ShadowGate, SourceGate
from graph_service.knowledge.items import content_id, key_of, parse_proposal, scope_matches
from graph_service.knowledge.state import KnowledgeState

from .harness import Journal


def test_same_knowledge_twice_is_one_item_with_two_assertions() -> None:
    j = Journal()
    first = j.fact("abt:1", "brand", "acme")
    second = j.fact("abt:1", "brand", "acme", source="outcome")
    assert first == second
    assert len(j.state.items) == 1
    assert j.state.items[first].props["support"] == [1, 2]
    assert j.state.items[first].props["rank"] == 4  # the strongest assertion shows


def test_content_id_depends_on_kind_body_and_scope_not_key_order() -> None:
    assert content_id("fact", {"s": "a", "r": "b", "o": 1}, {}) == content_id(
        "fact", {"o": 1, "r": "b", "s": "a"}, {}
    )
    assert content_id("fact", {"s": "a", "r": "b", "o": 1}, {}) != content_id(
        "fact", {"s": "a", "r": "b", "o": 1}, {"q": 1}
    )
    assert content_id("rule", {"s": "a"}, {}) != content_id("skill", {"s": "a"}, {})


def test_key_needs_subject_and_relation() -> None:
    assert key_of({"s": "a", "r": "b", "o": 1}, {"env": "x"}) == '[{"env":"x"},"a","b"]'
    assert key_of({"steps": []}, {}) is None


def test_scope_matches_pattern() -> None:
    assert scope_matches({"env": "x", "task": 1}, {"env": "x"})
    assert not scope_matches({"env": "y"}, {"env": "x"})
    assert not scope_matches({}, {"env": "x"})
    assert scope_matches({"env": "x"}, {})


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ({"kind": "belief", "body": {}, "source": "person"}, "kind", "unknown kind"),
        ({"kind": "fact", "body": {"s": "a", "r": "b"}, "source": "person"}, "body", "missing o"),
        ({"kind": "action", "body": {"effects": []}, "source": "person"}, "body", "preconditions"),
        ({"kind": "fact", "body": {"s": "a", "r": "b", "o": 1}, "source": 3}, "source", "string"),
        ({"kind": "fact", "body": [], "source": "person"}, "body", "object"),
        (
            {"kind": "rule", "body": {}, "source": "person", "reconfirm_after": -1},
            "reconfirm_after",
            "positive",
        ),
    ],
)
def test_malformed_proposals_raise_naming_the_field(raw: dict, field: str, words: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_proposal(raw, by="ann")
    assert caught.value.field == field
    assert words in str(caught.value)


def test_missing_and_retracted_premises_are_refused_before_anything_is_written() -> None:
    j = Journal()
    with pytest.raises(NotFound, match="premise k-nope"):
        planning.plan_add(
            j.state,
            {
                "kind": "fact",
                "body": {"s": "a", "r": "b", "o": 1},
                "source": "person",
                "derived_from": ["k-nope"],
            },
            by="ann",
        )
    a = j.fact("a", "r", 1)
    j.retract(a)
    with pytest.raises(Conflict, match="retracted"):
        planning.plan_add(
            j.state,
            {"kind": "fact", "body": {"s": "b", "r": "r", "o": 1}, "source": "person", "derived_from": [a]},
            by="ann",
        )
    assert len(j.entries) == 2


@pytest.mark.parametrize(("source", "of"), [("model", None), ("system", None), ("verified", None)])
def test_bad_sources_are_refused_and_the_refusal_is_a_journal_entry(source: str, of: str | None) -> None:
    j = Journal()
    result = j.add("fact", {"s": "a", "r": "b", "o": 1}, source=source, of=of)
    assert result["status"] == "refused"
    assert j.entries[-1].op == ops.REFUSED
    assert j.entries[-1].payload["why"] == result["why"]
    assert j.entries[-1].payload["verdicts"][0]["gate"] == "source"
    assert j.state.items == {}
    assert j.state.report()["refused"] == 1


def test_verified_naming_its_decision_is_admitted() -> None:
    j = Journal()
    result = j.add("fact", {"s": "a", "r": "b", "o": 1}, source="verified", of="decision-7")
    assert j.status(result["id"]) == "active"


def test_self_defeating_derivation_is_refused_even_through_a_chain() -> None:
    j = Journal()
    a = j.fact("x", "colour", "red")
    b = j.add("rule", {"if": "red", "then": "stop"}, derived_from=[a])["id"]
    direct = j.add("fact", {"s": "x", "r": "colour", "o": "blue"}, derived_from=[a])
    chained = j.add("fact", {"s": "x", "r": "colour", "o": "blue"}, derived_from=[b])
    for result in (direct, chained):
        assert result["status"] == "refused"
        assert "self-defeating" in result["why"]
    assert [e.op for e in j.entries][-2:] == [ops.REFUSED, ops.REFUSED]
    consistent = j.add("fact", {"s": "x", "r": "shade", "o": "dark"}, derived_from=[a])
    assert consistent["status"] == "active"


def test_facts_present_at_once_rules_promoted_or_held_with_why() -> None:
    j = Journal(KnowledgeState(gates=[ShadowGate()]))
    fact = j.fact("a", "r", 1)
    good = j.add("rule", {"when": "a"}, shadow={"baseline": 0.5, "candidate": 0.7})
    held = j.add("skill", {"steps": ["x"]})
    assert j.status(fact) == "active"
    assert (good["admission"], j.status(good["id"])) == ("promoted", "active")
    assert (held["admission"], j.status(held["id"])) == ("held", "hypothesis")
    assert "no shadow measurement" in j.entries[-1].payload["why"]
    gates = [v["gate"] for v in j.entries[-1].payload["verdicts"]]
    assert gates == ["source", "shadow"]  # the source check runs first although not given
    changes = j.write(planning.plan_promote(j.state, held["id"], "person reviewed"))
    assert changes == {held["id"]: ("hypothesis", "active")}
    with pytest.raises(Conflict):
        planning.plan_promote(j.state, held["id"])
    with pytest.raises(Conflict):
        planning.plan_promote(j.state, fact)


def test_source_gate_always_first() -> None:
    j = Journal(KnowledgeState(gates=[ShadowGate(), SourceGate()]))
    result = j.add("rule", {"when": "a"}, source="model")
    assert result["status"] == "refused"
    assert [v["gate"] for v in j.entries[-1].payload["verdicts"]] == ["source"]


def test_an_item_cannot_rest_on_what_rests_on_it() -> None:
    j = Journal()
    a = j.fact("a", "r", 1)
    b = j.fact("b", "r", 1, derived_from=[a])
    with pytest.raises(Conflict, match="rests on it"):
        planning.plan_add(
            j.state,
            {"kind": "fact", "body": {"s": "a", "r": "r", "o": 1}, "source": "person", "derived_from": [b]},
            by="ann",
        )
