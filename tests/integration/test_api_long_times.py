"""Clock times and ticks past 2^31 pass through the API (GraphQL's Int is 32-bit; they are `Long`): an observer
may count its ticks in epoch milliseconds, and the store clock grows with every tick. Past 2^53 - 1, the
largest integer JSON holds exactly, they are refused by name, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.integration.graphql_client import data, gql, head_seq

EPOCH_MS = 1_764_979_200_000  # 2025-12-06 in epoch milliseconds: far past 2^31
PAST_JSON = 2**53



def test_the_store_clock_and_an_item_s_expiry_pass_2_to_the_31(client: TestClient) -> None:
    data(client, "mutation($k: Long!) { tick(k: $k) { seq } }", {"k": 3_000_000_000})
    added = data(client, """mutation($i: ItemInput!) { addItem(item: $i) { id status } }""",
                 {"i": {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "red"}, "source": "person",
                        "reconfirmAfter": 4_000_000_000}})["addItem"]
    item = data(client, "query($id: String!) { item(id: $id) { reconfirmAfter expiresAt } }",
                {"id": added["id"]})["item"]
    assert item == {"reconfirmAfter": 4_000_000_000, "expiresAt": 7_000_000_000}
    data(client, "mutation($k: Long!) { tick(k: $k) { seq } }", {"k": 4_000_000_000})
    assert data(client, "query($id: String!) { item(id: $id) { status } }", {"id": added["id"]})["item"] == {
        "status": "expired"}


def test_an_observer_counting_in_epoch_milliseconds_observes_and_recalls(client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    rows = data(client, """mutation($t: Long!) { observe(observer: "cam", tick: $t, kind: "seen", subject: "door")
      { rows { id tick } } }""", {"t": EPOCH_MS})["observe"]["rows"]
    assert [r["tick"] for r in rows] == [EPOCH_MS]
    recalled = data(client, """query($now: Long!) { recall(observer: "cam", now: $now, k: 1, halfLife: 1000)
      { id tick age } }""", {"now": EPOCH_MS + 500})["recall"]
    assert recalled == [{"id": rows[0]["id"], "tick": EPOCH_MS, "age": 500}]


def test_a_statement_said_at_an_epoch_millisecond_tick(client: TestClient) -> None:
    said = data(client, """mutation($t: Long!) { say(text: "the door is red", speaker: "ann", tick: $t)
      { observation { id tick } } }""", {"t": EPOCH_MS})["say"]
    assert said["observation"]["tick"] == EPOCH_MS
    again = data(client, "query($id: String!) { observation(id: $id) { tick } }", {"id": said["observation"]["id"]})
    assert again["observation"] == {"tick": EPOCH_MS}


@pytest.mark.parametrize(
    ("query", "variables", "message", "field"),
    [
        ("mutation($k: Long!) { tick(k: $k) { seq } }", {"k": PAST_JSON}, "past 2^53 - 1", "k"),
        ('mutation($t: Long!) { observe(observer: "cam", tick: $t, kind: "seen", subject: "door") { seq } }',
         {"t": PAST_JSON}, "outside the integers JSON holds exactly", "payload.tick"),
        ('mutation($t: Long!) { say(text: "the door is red", speaker: "ann", tick: $t) { seq } }',
         {"t": PAST_JSON}, "outside the integers JSON holds exactly", "payload.tick"),
    ],
)
def test_a_time_past_what_json_holds_exactly_is_refused_by_name_and_writes_nothing(
        client: TestClient, query: str, variables: dict[str, Any], message: str, field: str) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    before = head_seq(client)
    errors = gql(client, query, variables)["errors"]
    assert message in errors[0]["message"] and errors[0]["extensions"]["field"] == field, errors
    assert head_seq(client) == before
