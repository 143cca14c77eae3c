"""What a knowledge entry names (ops.items_named, ops.keys_named): what a bulk load reads ahead for the entries
it is about to apply (from_graph.knowledge.Run.read_ahead). A hint, so it must name what the rules read first
and never fail on a payload the rules would refuse."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.knowledge import ops, planning
from graph_service.knowledge.items import content_id, key_of

from .harness import Journal


def test_an_addition_names_its_own_item_its_premises_what_it_supersedes_and_its_key() -> None:
    j = Journal()
    a = j.fact("door", "colour", "red")
    b = j.fact("door", "width", 80)
    old = j.fact("door", "paint", "gloss")
    raw = {"kind": "fact", "body": {"s": "door", "r": "paint", "o": "matt"}, "scope": {"site": "x"},
           "source": "person", "derived_from": [a, b], "supersedes": old}
    draft = planning.plan_add(j.state, raw, by="tester")
    body, scope = draft.payload["body"], draft.payload["scope"]
    # What the rules read first is the item of the payload's content: the id the planner wrote is that one.
    assert draft.payload["id"] == content_id("fact", body, scope)
    assert ops.items_named(draft.op, draft.payload) == [draft.payload["id"], a, b, old]
    assert ops.keys_named(draft.op, draft.payload) == [key_of(body, scope)]
    episode = planning.plan_add(j.state, {"kind": "episode", "body": {"text": "rain"}, "source": "person"}, by="t")
    assert ops.keys_named(episode.op, episode.payload) == []  # no subject and relation: no key


def test_the_other_operations_name_the_item_they_are_about_or_the_items_and_keys_they_list() -> None:
    j = Journal()
    a = j.fact("door", "colour", "red")
    for draft in (planning.plan_retract(j.state, a, "wrong"), planning.plan_retire(j.state, a, "old"),
                  planning.plan_reconfirm(j.state, a, "check")):
        assert ops.items_named(draft.op, draft.payload) == [a], draft
        assert ops.keys_named(draft.op, draft.payload) == [], draft
    assert ops.items_named(ops.FLAG, {"ids": [a, "k-2"]}) == [a, "k-2"]
    assert ops.items_named(ops.USED, {"ids": [a]}) == [a]
    assert ops.keys_named(ops.FLAG, {"key": "k"}) == ["k"]
    assert ops.keys_named(ops.RESOLVE, {"key": "k", "value": "v"}) == ["k"]
    assert ops.items_named(ops.TICK, {"k": 3}) == [] and ops.keys_named(ops.TICK, {"k": 3}) == []


@pytest.mark.parametrize("op,payload", [
    (ops.ADD, {"id": 7, "derived_from": "k-1", "supersedes": ["k-2"], "body": [1], "scope": "x"}),
    (ops.ADD, {"body": {"s": "a", "r": "b", "o": 1}, "scope": {"q": float("nan")}}),
    (ops.ADD, {"body": {"s": "a", "r": "b"}, "scope": ["not", "a", "map"]}),
    (ops.ADD, {"derived_from": [1, None, {"id": "k-3"}]}),
    (ops.RETRACT, {"id": ["k-1"]}),
    (ops.FLAG, {"ids": "k-1", "key": 3}),
    (ops.USED, {"ids": {"k-1": 1}}),
    (ops.RESOLVE, {"key": None}),
    ("note", {"id": "k-1"}),
])
def test_a_payload_the_rules_would_refuse_names_only_string_ids_and_never_fails(op: str, payload: dict[str, Any]) \
        -> None:
    assert ops.items_named(op, payload) == []
    assert ops.keys_named(op, payload) == []
