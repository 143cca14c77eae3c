"""`history(id)` on every backend: a node's every state, each with the entry that caused it, from the
changes the projection keeps on its WROTE edges; the last state is the node as stored."""

from __future__ import annotations

import math
from typing import Any

from starlette.testclient import TestClient

from graph_service.history import node_states
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.graphql_client import gql

ADD = "mutation($i: ItemInput!) { addItem(item: $i) { id } }"
RETRACT = "mutation($id: String!) { retractItem(id: $id, why: \"wrong door\") { seq } }"
HISTORY = """query($id: ID!, $first: Int, $after: String) { history(id: $id, first: $first, after: $after) {
  totalCount edges { cursor node { label position op by changes state } } pageInfo { hasNextPage endCursor } } }"""


def test_an_item_s_states_name_the_entries_that_made_them(client: TestClient) -> None:
    fact = {"kind": "fact", "body": {"s": "the door", "r": "is", "o": "open"}, "source": "person"}
    item = gql(client, ADD, {"i": fact})["data"]["addItem"]["id"]
    gql(client, RETRACT, {"id": item})
    found = gql(client, HISTORY, {"id": item})["data"]["history"]
    assert found["totalCount"] == 2
    first, second = (e["node"] for e in found["edges"])
    assert (first["label"], first["op"], first["by"]) == ("Item", "item.add", "anonymous")
    assert first["state"]["status"] == "active" and second["op"] == "item.retract"
    assert second["changes"]["status"] == "retracted" and second["state"]["status"] == "retracted"
    assert second["position"] > first["position"]
    page = gql(client, HISTORY, {"id": item, "first": 1})["data"]["history"]
    assert page["pageInfo"]["hasNextPage"] and [e["node"]["op"] for e in page["edges"]] == ["item.add"]
    rest = gql(client, HISTORY, {"id": item, "after": page["pageInfo"]["endCursor"]})["data"]["history"]
    assert [e["node"]["op"] for e in rest["edges"]] == ["item.retract"]


def test_a_node_nobody_wrote_is_named(client: TestClient) -> None:
    answer = gql(client, HISTORY, {"id": "k-nothing"})
    assert answer["data"] is None or answer["data"].get("history") is None
    assert "no node 'k-nothing'" in answer["errors"][0]["message"]


def same(history: dict[str, Any] | None, stored: dict[str, Any]) -> bool:
    """Equal properties; floats to 1e-12 relative, as FalkorDB answers doubles with 15 significant
    digits (0.6361979833241206 comes back 0.636197983324121) while the history keeps them exact."""
    if history is None or set(history) != set(stored):
        return False
    return all(math.isclose(v, stored[k], rel_tol=1e-12) if isinstance(v, float) else v == stored[k]
               for k, v in history.items())


def test_every_node_s_last_state_is_the_node_as_stored(backend: Backend) -> None:
    # The benchmark's realistic mix, written one entry at a time: for every item and belief, folding
    # what each entry changed on it gives exactly the properties the graph holds.
    from benchmarks.service_shape import mix

    service = Service.open(backend.whole_state_settings())
    try:
        for plan in mix(service, 300, 11):
            service.journal.write("loader", plan)
        items = sorted(service.state.knowledge.items)
        beliefs = sorted(service.state.beliefs.beliefs)
        assert items and beliefs
        stored = {r["item"]["id"]: r["item"] for r in service.graph.run("items_by_id", {"ids": items})}
        for belief in beliefs:
            stored[belief] = service.graph.run("belief_by_id", {"id": belief})[0]["belief"]
        for node_id in items + beliefs:
            states = node_states(service.graph.run("node_history", {"id": node_id}))
            assert states and same(states[-1].state, stored[node_id]), (node_id, states[-1].state, stored[node_id])
            assert [s.seq for s in states] == sorted({s.seq for s in states})  # each writer once, in order
    finally:
        service.close()


CHANGES = """query($from: Long!, $to: Long!, $first: Int, $after: String) {
  changes(from: $from, to: $to, first: $first, after: $after) {
    totalCount edges { node { id label before after positions } } pageInfo { hasNextPage endCursor } } }"""


def test_changes_between_two_positions_give_each_node_before_and_after(client: TestClient) -> None:
    fact = {"kind": "fact", "body": {"s": "the gate", "r": "is", "o": "shut"}, "source": "person"}
    item = gql(client, ADD, {"i": fact})["data"]["addItem"]["id"]
    added = gql(client, "{ head { seq } }")["data"]["head"]["seq"]
    gql(client, RETRACT, {"id": item})
    head = gql(client, "{ head { seq } }")["data"]["head"]["seq"]
    found = gql(client, CHANGES, {"from": added, "to": head})["data"]["changes"]
    assert found["totalCount"] == 1
    change = found["edges"][0]["node"]
    assert (change["id"], change["label"], change["positions"]) == (item, "Item", [head])
    assert change["before"]["status"] == "active" and change["after"]["status"] == "retracted"
    whole = gql(client, CHANGES, {"from": 0, "to": head})["data"]["changes"]
    assert whole["edges"][0]["node"]["before"] is None  # nothing had written it at the start
    assert gql(client, CHANGES, {"from": head, "to": head})["data"]["changes"]["totalCount"] == 0


def test_changes_refuse_a_position_past_the_head_or_a_reversed_range(client: TestClient) -> None:
    gql(client, 'mutation { note(text: "one entry") { seq } }')
    past = gql(client, CHANGES, {"from": 0, "to": 99})
    assert "position 99 is past the journal's head (1)" in past["errors"][0]["message"]
    reversed_ = gql(client, CHANGES, {"from": 1, "to": 0})
    assert "0 <= from <= to" in reversed_["errors"][0]["message"]
