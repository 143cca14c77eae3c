"""The knowledge store through the GraphQL API on the embedded backend."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.integration.graphql_client import gql

# Every knowledge entry these tests write is also applied on what it reads from the graph, and must agree.
pytestmark = pytest.mark.usefixtures("knowledge_reads_checked")

ADD = """mutation($i: ItemInput!) { addItem(item: $i) {
  id status admission why seq changes { id before after } } }"""
DISPUTES = "{ disputes { edges { node { id key items } } } }"
RETRACT = 'mutation($id: String!) { retractItem(id: $id, why: "wrong") { seq changes { id before after } } }'


def add(client: TestClient, s: str, r: str, o: Any, source: str = "person", **extra: Any) -> dict[str, Any]:
    body = gql(client, ADD, {"i": {"kind": "fact", "body": {"s": s, "r": r, "o": o}, "source": source, **extra}})
    assert "errors" not in body, body
    return body["data"]["addItem"]


def head(client: TestClient) -> int:
    return gql(client, "{ head { seq } }")["data"]["head"]["seq"]


def test_retraction_cascades_and_is_exact(client: TestClient) -> None:
    a = add(client, "abt:123", "same_as", "buy:456")
    b = add(client, "abt:123", "brand", "acme", source="outcome", derivedFrom=[a["id"]])
    c = add(client, "abt:123", "sku", "X1", derivedFrom=[a["id"], b["id"]])  # a diamond over a
    walk = gql(client, 'query($i: [String!]!) { dependents(ids: $i) { id depth via edge } }', {"i": [a["id"]]})
    assert {(s["id"], s["depth"]) for s in walk["data"]["dependents"]} == {(b["id"], 1), (c["id"], 1)}
    up = gql(client, 'query($i: [String!]!) { upstream(ids: $i) { id depth edge } }', {"i": [c["id"]]})
    assert {s["id"] for s in up["data"]["upstream"]} == {a["id"], b["id"]}
    changes = gql(client, RETRACT, {"id": a["id"]})["data"]["retractItem"]["changes"]
    assert {(ch["id"], ch["before"], ch["after"]) for ch in changes} == {
        (a["id"], "active", "retracted"), (b["id"], "active", "retracted"), (c["id"], "active", "retracted")}
    fps = gql(client, 'query($s: [String!]) { fingerprint { knowledge } rebuild(skip: $s) { knowledge } '
                      'verify { ok projectionOk } }', {"s": [a["id"]]})["data"]
    assert fps["fingerprint"]["knowledge"] == fps["rebuild"]["knowledge"]
    assert fps["verify"] == {"ok": True, "projectionOk": True}


def test_a_dispute_asks_once_and_a_person_resolves_it(client: TestClient) -> None:
    blue = add(client, "door", "colour", "blue")
    red = add(client, "door", "colour", "red")
    assert red["status"] == "disputed"
    disputes = [e["node"] for e in gql(client, DISPUTES)["data"]["disputes"]["edges"]]
    assert len(disputes) == 1 and sorted(disputes[0]["items"]) == sorted([blue["id"], red["id"]])
    resolved = gql(client, 'mutation($k: String!) { resolveDispute(key: $k, value: "blue") { changes { id after } } }',
                   {"k": disputes[0]["key"]})["data"]["resolveDispute"]
    assert {c["id"]: c["after"] for c in resolved["changes"]} == {blue["id"]: "active", red["id"]: "refuted"}
    assert gql(client, DISPUTES)["data"]["disputes"]["edges"] == []
    item = gql(client, 'query($id: String!) { item(id: $id) { status s r o source } }', {"id": red["id"]})
    assert item["data"]["item"] == {"status": "refuted", "s": "door", "r": "colour", "o": "red", "source": "person"}


def test_rollback_under_a_pending_flag_restores_a_hint(client: TestClient) -> None:
    old = add(client, "stream", "threshold", 5)
    new = add(client, "stream", "threshold", 7, supersedes=old["id"])
    assert gql(client, 'query($id: String!) { item(id: $id) { status } }', {"id": old["id"]})["data"]["item"] == {
        "status": "refuted"}
    flag = gql(client, 'mutation { raiseFlag(why: "drift", key: null, scope: {}) { id } }')["data"]["raiseFlag"]["id"]
    back = gql(client, 'mutation($id: String!) { rollbackItem(id: $id) { changes { id after } } }', {"id": new["id"]})
    assert {c["id"]: c["after"] for c in back["data"]["rollbackItem"]["changes"]}[old["id"]] == "hypothesis"
    stale = gql(client, 'query($id: String!) { stale(id: $id) item(id: $id) { stale } }', {"id": old["id"]})["data"]
    assert stale["stale"] and stale["item"]["stale"] is True
    snapshot = gql(client, '{ snapshot(about: ["stream"]) }')["data"]["snapshot"]
    assert [f["id"] for f in snapshot["facts"]] == [] and [h["id"] for h in snapshot["hints"]] == [old["id"]]
    assert flag.startswith("flag-")


FLAG = """id kind why pending raisedAt endedAt scope key covers coveredItems { id s o }"""
DISPUTE = """id question key values items openedAt open closedAt resolved disputedItems { id o status }"""


def test_flags_and_disputes_are_typed_and_paged(client: TestClient) -> None:
    blue = add(client, "door", "colour", "blue")
    red = add(client, "door", "colour", "red")
    pump = add(client, "pump", "state", "ok")
    by_ids = gql(client, 'mutation($i: [String!]) { raiseFlag(why: "repainted?", ids: $i) { id seq } }',
                 {"i": [pump["id"]]})["data"]["raiseFlag"]
    by_scope = gql(client, 'mutation { raiseFlag(why: "drift", scope: {}) { id seq } }')["data"]["raiseFlag"]
    ended = gql(client, 'mutation($f: String!) { endFlag(flag: $f) { seq } }', {"f": by_ids["id"]})["data"]

    flags = gql(client, "{ flags(first: 1) { edges { cursor node { " + FLAG + " } } "
                        "pageInfo { hasNextPage endCursor } totalCount } }")["data"]["flags"]
    assert flags["totalCount"] == 2 and flags["pageInfo"]["hasNextPage"] is True
    assert flags["edges"][0]["node"] == {
        "id": by_ids["id"], "kind": "ids", "why": "repainted?", "pending": False, "raisedAt": by_ids["seq"],
        "endedAt": ended["endFlag"]["seq"], "scope": None, "key": None, "covers": [pump["id"]],
        "coveredItems": [{"id": pump["id"], "s": "pump", "o": "ok"}]}
    rest = gql(client, "query($a: String) { flags(first: 5, after: $a) { edges { node { " + FLAG + " } } "
                       "pageInfo { hasNextPage hasPreviousPage } totalCount } }",
               {"a": flags["pageInfo"]["endCursor"]})["data"]["flags"]
    [scoped] = [e["node"] for e in rest["edges"]]
    assert rest["pageInfo"] == {"hasNextPage": False, "hasPreviousPage": True} and rest["totalCount"] == 2
    assert (scoped["id"], scoped["kind"], scoped["pending"], scoped["raisedAt"], scoped["endedAt"],
            scoped["scope"]) == (by_scope["id"], "scope", True, by_scope["seq"], None, {})
    assert scoped["covers"] == sorted([blue["id"], red["id"], pump["id"]])
    pending = gql(client, "{ flags(pending: true) { totalCount edges { node { id } } } }")["data"]["flags"]
    assert pending == {"totalCount": 1, "edges": [{"node": {"id": by_scope["id"]}}]}

    disputes = gql(client, "{ disputes { edges { node { " + DISPUTE + " } } totalCount } }")["data"]["disputes"]
    [dispute] = [e["node"] for e in disputes["edges"]]
    assert disputes["totalCount"] == 1
    assert dispute["id"].startswith("d-") and dispute["key"] == '[{},"door","colour"]'
    assert (dispute["values"], dispute["items"], dispute["openedAt"], dispute["open"], dispute["closedAt"],
            dispute["resolved"]) == (['"blue"', '"red"'], sorted([blue["id"], red["id"]]), red["seq"], True, None,
                                     None)
    assert dispute["question"] == "Which is right for door colour: \"blue\" or \"red\"?"
    assert sorted((i["id"], i["o"], i["status"]) for i in dispute["disputedItems"]) == sorted(
        [(blue["id"], "blue", "disputed"), (red["id"], "red", "disputed")])

    done = gql(client, 'mutation($k: String!) { resolveDispute(key: $k, value: "blue") { seq } }',
               {"k": dispute["key"]})["data"]["resolveDispute"]
    assert gql(client, "{ disputes { totalCount edges { cursor } } }")["data"]["disputes"] == {
        "totalCount": 0, "edges": []}
    closed = gql(client, "query($id: ID!) { node(id: $id) { __typename ... on Dispute { open closedAt resolved } } }",
                 {"id": dispute["id"]})["data"]["node"]
    assert closed == {"__typename": "Dispute", "open": False, "closedAt": done["seq"], "resolved": '"blue"'}


@pytest.mark.parametrize(
    ("query", "variables", "message", "field"),
    [
        (ADD, {"i": {"kind": "fact", "body": {"s": "a", "r": "b"}, "source": "person"}}, "missing o", "body"),
        (ADD, {"i": {"kind": "fact", "body": {"s": "a", "r": "b", "o": 1}, "source": "person",
                     "derivedFrom": ["k-nope"]}}, "premise k-nope is not in the store", "derived_from"),
        (RETRACT, {"id": "k-unknown"}, "no item 'k-unknown'", "id"),
        ('mutation { resolveDispute(key: "[{},\\"a\\",\\"b\\"]", value: 1) { seq } }', None, "no open dispute",
         "key"),
        ('mutation { tick(k: -1) { seq } }', None, "not negative", "k"),
        ('{ items(first: 501) { totalCount } }', None, "first must be between 1 and 500", "first"),
        ('{ dependents(ids: ["k-1"], maxDepth: 0) { id } }', None, "maxDepth must be between 1 and 100, got 0",
         "maxDepth"),
        ('{ component(ids: ["k-1"], maxDepth: 101, asOf: 1) { id } }', None,
         "maxDepth must be between 1 and 100, got 101", "maxDepth"),
    ],
)
def test_bad_input_is_named_and_writes_nothing(client: TestClient, query: str, variables: dict[str, Any] | None,
                                               message: str, field: str) -> None:
    add(client, "x", "y", "z")
    before = head(client)
    error = gql(client, query, variables)["errors"][0]
    assert message in error["message"] and error["extensions"]["field"] == field
    assert head(client) == before


def test_a_gate_refusal_is_journalled(client: TestClient) -> None:
    # An unknown source used to be the example; sources are an enum now (issue 13 part 4), so it is refused
    # by validation (tests/integration/test_api_vocabularies.py) and the source gate's other refusal stands in.
    refused = add(client, "x", "y", "z", source="verified")
    assert refused["id"] is None and refused["admission"] == "refused" and "(of)" in refused["why"]
    entry = gql(client, "{ journal(first: 1) { edges { node { op payload } } } }")["data"]["journal"]["edges"][0]
    assert entry["node"]["op"] == "item.refused" and "(of)" in entry["node"]["payload"]
    assert gql(client, "{ report }")["data"]["report"]["refused"] == 1


@pytest.mark.parametrize("scope", [[], "team", 3])
def test_an_items_filter_scope_that_is_not_an_object_is_named(client: TestClient, scope: Any) -> None:
    # Found by the fuzzer: a list reached scope_matches and raised AttributeError, masked as "Unexpected error.".
    add(client, "x", "y", "z")
    body = gql(client, "query($f: ItemFilter) { items(filter: $f) { totalCount } }", {"f": {"scope": scope}})
    assert body["data"] is None
    assert body["errors"][0]["message"] == "filter.scope must be an object"
    assert body["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": "scope"}
    assert gql(client, '{ items(filter: {scope: {}}) { totalCount } }')["data"]["items"]["totalCount"] == 1


def test_redecide_splits_answer_changes_from_justification(client: TestClient) -> None:
    fact_item = add(client, "pump", "state", "ok")
    hint_item = add(client, "pump", "colour", "red")
    gql(client, 'mutation($i: [String!]) { raiseFlag(why: "repainted?", ids: $i) { id } }', {"i": [hint_item["id"]]})
    snapshot = gql(client, 'mutation { takeSnapshot(about: ["pump"]) }')["data"]["takeSnapshot"]
    assert [f["id"] for f in snapshot["facts"]] == [fact_item["id"]]
    assert [h["id"] for h in snapshot["hints"]] == [hint_item["id"]]
    query = 'query($r: [String!]!) { redecide(retracted: $r) { answerChanges { snapshot old new } ' \
            'justificationOnly { snapshot } } }'
    hint_gone = gql(client, query, {"r": [hint_item["id"]]})["data"]["redecide"]
    assert hint_gone == {"answerChanges": [], "justificationOnly": [{"snapshot": snapshot["id"]}]}
    fact_gone = gql(client, query, {"r": [fact_item["id"]]})["data"]["redecide"]
    assert fact_gone == {"answerChanges": [{"snapshot": snapshot["id"], "old": [["pump", "state", "ok"]], "new": []}],
                         "justificationOnly": []}
    assert gql(client, query, {"r": ["k-nope"]})["errors"][0]["extensions"]["field"] == "id"


@pytest.mark.parametrize(("mutation", "field"), [
    # Regression (issue 13): a blank reason was accepted as one.
    ('mutation($i: [String!]) { raiseFlag(why: "   ", ids: $i) { id } }', "why"),
    ('mutation($i: [String!]) { raiseFlag(why: "", ids: $i) { id } }', "why"),
    # Found by the malformed-mutation sweep: a snapshot of a blank subject or relation was recorded.
    ('mutation { takeSnapshot(about: ["door", "  "]) }', "about"),
    ('mutation { takeSnapshot(relation: "") }', "relation"),
])
def test_blank_text_is_refused_and_writes_nothing(client: TestClient, mutation: str, field: str) -> None:
    kept = add(client, "door", "colour", "blue")
    error = gql(client, mutation, {"i": [kept["id"]]} if "$i" in mutation else None)["errors"][0]
    assert "blank" in error["message"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert head(client) == 1
