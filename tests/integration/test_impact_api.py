"""`impact` through the API, both backends: what would change, written nowhere, equal to the write."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from tests.integration.graphql_client import data, gql

IMPACT = """query($i: [String!], $o: [String!]) { impact(items: $i, observations: $o) {
  items { id before after } supports { id } beliefs { belief before { status confidence } after { status confidence } }
} }"""
ADD = "mutation($i: ItemInput!) { addItem(item: $i) { id } }"
BELIEF = """mutation($p: String!, $ev: [EvidenceInput!]) { createBelief(proposition: $p, evidence: $ev) {
  belief { id status confidence } } }"""



def head(client: TestClient) -> int:
    return data(client, "{ head { seq } }")["head"]["seq"]


def belief_state(client: TestClient, belief: str) -> dict[str, Any]:
    return data(client, "query($b: String!) { belief(id: $b) { status confidence } }", {"b": belief})["belief"]


def add(client: TestClient, s: str, derived_from: list[str] | None = None) -> str:
    item: dict[str, Any] = {"kind": "fact", "body": {"s": s, "r": "is", "o": 1}, "source": "person"}
    if derived_from:
        item["derivedFrom"] = derived_from
    return data(client, ADD, {"i": item})["addItem"]["id"]


def test_what_falls_if_a_source_was_wrong_then_the_retraction_does_it(client: TestClient) -> None:
    a = add(client, "premise")
    b = add(client, "derived", [a])
    rows = [{"weight": 0.8, "family": "from-b", "rootKind": "item", "rootIds": [b]},
            {"weight": 0.5, "family": "other"}]
    belief = data(client, BELIEF, {"p": "the derived fact holds", "ev": rows})["createBelief"]["belief"]["id"]
    before, written = belief_state(client, belief), head(client)
    predicted = data(client, IMPACT, {"i": [a]})["impact"]
    assert head(client) == written  # nothing written
    assert {(c["id"], c["before"], c["after"]) for c in predicted["items"]} == {
        (a, "active", "retracted"), (b, "active", "retracted")}
    [change] = predicted["beliefs"]
    assert change["belief"] == belief and change["before"] == before
    assert change["after"]["confidence"] < before["confidence"]
    data(client, 'mutation($a: String!) { retractItem(id: $a, why: "wrong") { seq } }', {"a": a})
    assert belief_state(client, belief) == change["after"]
    assert data(client, "query($a: [String!]!) { dependents(ids: $a) { id } }", {"a": [a]})["dependents"] == [
        {"id": b}]


def test_an_observation_marked_inaccurate(client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    seen = data(client, 'mutation { observe(observer: "cam", tick: 1, kind: "seen", subject: "door") '
                        '{ rows { id } } }')["observe"]["rows"][0]["id"]
    rows = [{"weight": 0.7, "family": "cam", "rootKind": "observation", "rootIds": [seen]}]
    belief = data(client, BELIEF, {"p": "the door was seen", "ev": rows})["createBelief"]["belief"]["id"]
    [change] = data(client, IMPACT, {"o": [seen]})["impact"]["beliefs"]
    data(client, 'mutation($o: String!) { markInaccurate(rootId: $o, reason: "fog") { seq } }', {"o": seen})
    assert change["belief"] == belief and belief_state(client, belief) == change["after"]


def test_unknown_ids_are_named(client: TestClient) -> None:
    for variables, field in (({"i": ["nope"]}, "items"), ({"o": ["nope"]}, "observations")):
        error = gql(client, IMPACT, variables)["errors"][0]
        assert error["extensions"] == {"code": "NOT_FOUND", "field": field} and "nope" in error["message"]
