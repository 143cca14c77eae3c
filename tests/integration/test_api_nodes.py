"""`Node` and `node(id)` (issue 13 part 4): every kind with an id round-trips through node(id)."""

from __future__ import annotations

from starlette.testclient import TestClient

from tests.integration.graphql_client import data, gql


def one_of_each(client: TestClient) -> dict[str, str]:
    """An id of every kind that implements Node, by its GraphQL type name."""
    item = data(client, 'mutation { addItem(item: {kind: fact, body: {s: "pump", r: "state", o: "worn"}, '
                        'source: person}) { id seq } }')["addItem"]
    made = data(client, """mutation($i: String!) { createBelief(proposition: "the pump will fail", evidence: [
      {weight: 0.7, family: "ann", rootKind: item, rootIds: [$i]}]) { evidence belief { id } } }""",
                {"i": item["id"]})["createBelief"]
    said = data(client, 'mutation { say(text: "The pump is loud.", speaker: "bob", tick: 1) '
                        '{ observation { id } assertions { id } } }')["say"]
    asked = data(client, 'mutation { nextQuestion(declare: {situation: "repair", text: "Which pump?"}) '
                         '{ id declared } }')["nextQuestion"]
    flag = data(client, 'mutation { raiseFlag(why: "drift", scope: {}) { id } }')["raiseFlag"]["id"]
    for colour in ("blue", "red"):
        data(client, 'mutation($o: String!) { addItem(item: {kind: fact, body: {s: "door", r: "colour", o: $o}, '
                     'source: person}) { id } }', {"o": colour})
    dispute = data(client, "{ disputes { edges { node { id } } } }")["disputes"]["edges"][0]["node"]["id"]
    return {"JournalEntry": f"entry-{item['seq']}", "Item": item["id"], "Belief": made["belief"]["id"],
            "Evidence": made["evidence"][0], "Observation": said["observation"]["id"],
            "Assertion": said["assertions"][0]["id"], "Question": asked["id"], "Unknown": asked["declared"],
            "Flag": flag, "Dispute": dispute}


def test_node_round_trips_every_kind(client: TestClient) -> None:
    ids = one_of_each(client)
    query = "query($id: ID!) { node(id: $id) { __typename id ... on Item { kind } ... on Belief { proposition } } }"
    for typename, node_id in ids.items():
        found = data(client, query, {"id": node_id})["node"]
        assert (found["__typename"], found["id"]) == (typename, node_id), (typename, found)
    assert data(client, query, {"id": ids["Item"]})["node"]["kind"] == "fact"


def test_the_kinds_own_fields_give_the_same_id(client: TestClient) -> None:
    ids = one_of_each(client)
    shown = data(client, "query($i: String!, $b: String!, $o: String!) { item(id: $i) { id } belief(id: $b) { id } "
                         "observation(id: $o) { id } journal(first: 1) { edges { node { id seq } } } }",
                 {"i": ids["Item"], "b": ids["Belief"], "o": ids["Observation"]})
    assert (shown["item"]["id"], shown["belief"]["id"], shown["observation"]["id"]) == (
        ids["Item"], ids["Belief"], ids["Observation"])
    assert shown["journal"]["edges"][0]["node"] == {"id": "entry-1", "seq": 1}


def test_a_missing_node_is_null_with_an_error_naming_it(client: TestClient) -> None:
    for missing in ("k-nothing", "b9.9", "e9.9", "obs-9-0", "asr-9-0", "entry-99", "x#q1", "flag-9", "d-0123456789ab-9",
                    "no-such-unknown"):
        body = gql(client, "query($id: ID!) { node(id: $id) { id } head { seq } }", {"id": missing})
        assert body["data"] == {"node": None, "head": {"seq": 0}}, missing
        (error,) = body["errors"]
        assert repr(missing) in error["message"] and error["extensions"]["code"] == "NOT_FOUND"


def test_a_declared_unknown_with_an_id_of_another_shape_is_still_found(client: TestClient) -> None:
    # Declared ids are the client's choice: the shape names another kind, which has no such node.
    data(client, 'mutation { declareUnknown(situation: "s", text: "t", id: "k-mine") { id } }')
    assert data(client, '{ node(id: "k-mine") { __typename id } }')["node"] == {"__typename": "Unknown",
                                                                              "id": "k-mine"}
