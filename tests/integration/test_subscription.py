"""journalEntries over graphql-transport-ws: what is there after a position, then what is written next."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.testclient import WebSocketTestSession as WebSocket

from graph_service.api.app import create_app
from graph_service.api.subscription import POLL_SECONDS
from tests.backends import Backend

PROTOCOL = "graphql-transport-ws"
ENTRIES = "subscription($after: Int!) { journalEntries(after: $after) { seq op by hash prev payload } }"


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.delenv("GRAPH_SERVICE_TOKENS_JSON", raising=False)
    with TestClient(create_app(backend.settings())) as c:
        yield c


def write_note(client: TestClient, text: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = client.post("/graphql", json={"query": 'mutation($t: String!) { note(text: $t) { seq hash } }',
                                         "variables": {"t": text}}, headers=headers or {}).json()
    return body["data"]["note"]


def connect(ws: WebSocket) -> None:
    ws.send_json({"type": "connection_init"})
    assert ws.receive_json() == {"type": "connection_ack"}


def subscribe(ws: WebSocket, after: int, op_id: str = "s1") -> None:
    ws.send_json({"type": "subscribe", "id": op_id, "payload": {"query": ENTRIES, "variables": {"after": after}}})


def next_entry(ws: WebSocket, op_id: str = "s1") -> dict[str, Any]:
    message = ws.receive_json()
    assert message["type"] == "next" and message["id"] == op_id, message
    assert "errors" not in message["payload"], message
    return message["payload"]["data"]["journalEntries"]


def test_existing_then_new_entries_then_complete(client: TestClient) -> None:
    written = [write_note(client, f"n{i}") for i in range(1, 4)]
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL]) as ws:
        assert ws.accepted_subprotocol == PROTOCOL
        connect(ws)
        subscribe(ws, after=1)
        second, third = next_entry(ws), next_entry(ws)
        assert (second["seq"], third["seq"]) == (2, 3)
        assert third["hash"] == written[2]["hash"] and third["prev"] == second["hash"]
        assert json.loads(third["payload"]) == {"text": "n3"} and third["op"] == "note" and third["by"] == "anonymous"

        fresh = write_note(client, "while subscribed")
        fourth = next_entry(ws)
        assert fourth["seq"] == 4 and fourth["hash"] == fresh["hash"]

        ws.send_json({"type": "complete", "id": "s1"})
        write_note(client, "after complete")
        time.sleep(3 * POLL_SECONDS)  # long enough for a still-running subscription to have sent it
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # nothing more arrived for the completed subscription


def test_resume_from_the_last_seq_received(client: TestClient) -> None:
    for i in range(5):
        write_note(client, f"n{i}")
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL]) as ws:
        connect(ws)
        subscribe(ws, after=0)
        seen = [next_entry(ws)["seq"] for _ in range(3)]
        ws.send_json({"type": "complete", "id": "s1"})
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL]) as ws:
        connect(ws)
        subscribe(ws, after=seen[-1], op_id="s2")
        seen += [next_entry(ws, "s2")["seq"] for _ in range(2)]
    assert seen == [1, 2, 3, 4, 5]


def test_subscribing_at_the_head_waits_for_the_next_entry(client: TestClient) -> None:
    write_note(client, "old")
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL]) as ws:
        connect(ws)
        subscribe(ws, after=1)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # the server stays responsive while the subscription polls
        write_note(client, "new")
        assert next_entry(ws)["seq"] == 2


def test_a_negative_position_is_a_clear_error(client: TestClient) -> None:
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL]) as ws:
        connect(ws)
        subscribe(ws, after=-1)
        message = ws.receive_json()
    assert message["type"] == "next"
    error = message["payload"]["errors"][0]
    assert error["message"] == "after must be 0 or more, got -1"
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": "after"}


def test_with_tokens_the_websocket_needs_one(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_SERVICE_TOKENS_JSON", '{"r-token": "reader", "w-token": "writer"}')
    with TestClient(create_app(backend.settings())) as c:
        write_note(c, "first", headers={"Authorization": "Bearer w-token"})
        with pytest.raises(WebSocketDenialResponse) as denied:
            c.websocket_connect("/graphql", subprotocols=[PROTOCOL]).__enter__()
        assert denied.value.status_code == 401
        with c.websocket_connect("/graphql", subprotocols=[PROTOCOL],
                                 headers={"Authorization": "Bearer r-token"}) as ws:
            connect(ws)
            subscribe(ws, after=0)
            assert next_entry(ws)["seq"] == 1
            # A reader may subscribe but not write, over the websocket too.
            ws.send_json({"type": "subscribe", "id": "m1",
                          "payload": {"query": 'mutation { note(text: "no") { seq } }'}})
            refused = ws.receive_json()
            assert refused["type"] == "error" and refused["id"] == "m1"
            assert refused["payload"][0]["extensions"]["code"] == "FORBIDDEN"
