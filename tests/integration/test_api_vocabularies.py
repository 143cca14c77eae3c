"""The closed vocabularies as GraphQL enums (issue 13 part 4): a typo is refused before anything runs,
naming what would do; a valid value filters and writes exactly the strings it did as a free string."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.api.schema import schema
from graph_service.beliefs import vocabulary
from graph_service.beliefs.planning import INACCURATE_ROOTS, PINNABLE
from graph_service.knowledge import items
from graph_service.knowledge.records import FLAG_KINDS
from tests.integration.graphql_client import gql

ADD = "mutation($i: ItemInput!) { addItem(item: $i) { id } }"
CREATE = """mutation($k: EpistemicKind!, $ev: [EvidenceInput!]) {
  createBelief(proposition: "the pump is worn", epistemicKind: $k, evidence: $ev) { seq belief { id } } }"""
FACT = {"kind": "fact", "body": {"s": "pump", "r": "state", "o": "worn"}, "source": "person"}

# (document, variables, the enum, where in the variables the error points, or None for a literal)
TYPOS: list[tuple[str, dict[str, Any] | None, str, str | None]] = [
    (ADD, {"i": {**FACT, "kind": "opinion"}}, "ItemKind", "i.kind"),
    ('mutation { addItem(item: {kind: fact, body: {s: "a", r: "b", o: "c"}, source: model}) { id } }', None,
     "ItemSource", None),
    ("{ items(filter: {status: [actve]}) { totalCount } }", None, "ItemStatus", None),
    ("{ items(filter: {kind: [fcat]}) { totalCount } }", None, "ItemKind", None),
    ("{ snapshot(kinds: [belief]) }", None, "ItemKind", None),
    (CREATE, {"k": "rumour"}, "EpistemicKind", "k"),
    (CREATE, {"k": "claim", "ev": [{"weight": 0.5, "family": "f", "derivation": "hunch"}]}, "Derivation",
     "ev[0].derivation"),
    (CREATE, {"k": "claim", "ev": [{"weight": 0.5, "family": "f", "direction": "agin"}]}, "EvidenceDirection",
     "ev[0].direction"),
    ('mutation { markInaccurate(rootId: "b1.1", rootKind: belief) { seq } }', None, "InaccurateRootKind", None),
    ('mutation { pinBelief(belief: "b1.1", status: great) { seq } }', None, "PinnableStatus", None),
    ('mutation { pinBelief(belief: "b1.1", status: superseded) { seq } }', None, "PinnableStatus", None),
    ("{ beliefs(filter: {status: acepted}) { totalCount } }", None, "BeliefStatus", None),
    ("{ beliefs(filter: {kind: rumour}) { totalCount } }", None, "EpistemicKind", None),
]


def head(client: TestClient) -> dict[str, Any]:
    return gql(client, "{ head { seq hash } }")["data"]["head"]


@pytest.mark.parametrize(("query", "variables", "enum", "field"), TYPOS, ids=[f"{t[2]}-{i}" for i, t in
                                                                            enumerate(TYPOS)])
def test_a_typo_is_a_validation_error_naming_the_allowed_values(client: TestClient, query: str,
                                                                variables: dict[str, Any] | None, enum: str,
                                                                field: str | None) -> None:
    before = head(client)
    body = gql(client, query, variables)
    assert body.get("data") is None, body  # refused before any resolver ran
    (error,) = body["errors"]
    allowed = ", ".join(schema._schema.get_type(enum).values)  # type: ignore[union-attr]
    assert f"in '{enum}' enum. Expected one of {allowed}." in error["message"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    if field is not None:
        assert error["extensions"]["field"] == field
    assert head(client) == before


def test_each_enum_holds_exactly_the_domain_vocabulary() -> None:
    expected = {
        "ItemKind": items.KINDS, "ItemSource": items.SOURCES, "ItemStatus": items.STATUSES,
        "EvidenceDirection": vocabulary.DIRECTIONS, "Derivation": vocabulary.DERIVATIONS,
        "EpistemicKind": vocabulary.EPISTEMIC_KINDS, "BeliefStatus": vocabulary.STATUSES,
        "PinnableStatus": PINNABLE, "ProvenanceStatus": vocabulary.PROVENANCE_STATUSES,
        "RootKind": vocabulary.ROOT_KINDS, "InaccurateRootKind": INACCURATE_ROOTS, "FlagKind": FLAG_KINDS,
    }
    for name, values in expected.items():
        assert tuple(schema._schema.get_type(name).values) == values, name  # type: ignore[union-attr]


def test_outputs_of_a_closed_vocabulary_are_its_enum() -> None:
    # Read back as the enum too, so a client learns the values from the schema on both sides.
    expected = {
        ("Item", "kind"): "ItemKind", ("Item", "source"): "ItemSource", ("Item", "status"): "ItemStatus",
        ("StatusChange", "before"): "ItemStatus", ("StatusChange", "after"): "ItemStatus",
        ("Belief", "epistemicKind"): "EpistemicKind", ("Belief", "status"): "BeliefStatus",
        ("Belief", "pinnedStatus"): "PinnableStatus", ("BeliefVersion", "status"): "BeliefStatus",
        ("BeliefSnapshot", "status"): "BeliefStatus", ("Evidence", "direction"): "EvidenceDirection",
        ("Evidence", "derivation"): "Derivation", ("Evidence", "provenanceStatus"): "ProvenanceStatus",
        ("Evidence", "rootKind"): "RootKind", ("Flag", "kind"): "FlagKind",
    }
    for (type_name, field), enum in expected.items():
        shown = schema._schema.get_type(type_name).fields[field].type  # type: ignore[union-attr]
        assert str(shown).rstrip("!") == enum, (type_name, field, str(shown))


def test_an_enum_literal_writes_the_same_payload_as_the_string_did(client: TestClient) -> None:
    literal = gql(client, 'mutation { addItem(item: {kind: fact, body: {s: "pump", r: "state", o: "worn"}, '
                          'source: person}) { id seq } }')["data"]["addItem"]
    entry = gql(client, "query($s: Int!) { journalEntry(seq: $s) { payload } }", {"s": literal["seq"]})
    payload = json.loads(entry["data"]["journalEntry"]["payload"])
    assert payload["kind"] == "fact" and payload["source"] == "person"
    made = gql(client, CREATE, {"k": "hypothesis", "ev": [{"weight": 0.5, "family": "f", "direction": "against",
                                                          "derivation": "inference", "rootKind": "item",
                                                          "rootIds": [literal["id"]]}]})
    assert "errors" not in made, made
    seq = made["data"]["createBelief"]["seq"]
    entry = gql(client, "query($s: Int!) { journalEntry(seq: $s) { payload } }", {"s": seq})
    written = json.loads(entry["data"]["journalEntry"]["payload"])
    assert written["epistemic_kind"] == "hypothesis"
    assert {k: written["evidence"][0][k] for k in ("direction", "derivation", "root_kind")} == {
        "direction": "against", "derivation": "inference", "root_kind": "item"}


def test_filters_take_the_enum_and_match(client: TestClient) -> None:
    made = gql(client, ADD, {"i": FACT})["data"]["addItem"]["id"]
    found = gql(client, "{ a: items(filter: {status: [active], kind: [fact], source: person}) { totalCount } "
                        "b: items(filter: {status: [retracted]}) { totalCount } }")["data"]
    assert found == {"a": {"totalCount": 1}, "b": {"totalCount": 0}}
    gql(client, CREATE, {"k": "claim", "ev": [{"weight": 0.9, "family": "f", "rootKind": "item", "rootIds": [made]}]})
    beliefs = gql(client, "query($s: BeliefStatus) { a: beliefs(filter: {kind: claim}) { totalCount } "
                          "b: beliefs(filter: {status: $s}) { totalCount } }", {"s": "rejected"})["data"]
    assert beliefs == {"a": {"totalCount": 1}, "b": {"totalCount": 0}}


def test_with_introspection_off_the_allowed_values_are_not_listed(backend: Any) -> None:
    # Like "Did you mean", the values would name schema members that introspection hides.
    with TestClient(create_app(backend.settings(introspection=False))) as c:
        (error,) = gql(c, "{ items(filter: {status: [actve]}) { totalCount } }")["errors"]
    assert "Expected one of" not in error["message"] and "active" not in error["message"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
