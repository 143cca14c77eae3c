"""The GraphQL skeleton end to end on the embedded backend: note, journal, head, verify, errors."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend
from tests.integration.graphql_client import gql

NOTE = "mutation($t: String!) { note(text: $t) { seq op by hash prev } }"
JOURNAL = """query($first: Int, $after: String) {
  journal(first: $first, after: $after) {
    edges { cursor node { seq op hash prev by at payload } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}"""


def test_note_then_journal_returns_the_entry(client: TestClient) -> None:
    note = gql(client, NOTE, {"t": "hello"})["data"]["note"]
    assert note["seq"] == 1 and note["op"] == "note" and note["by"] == "anonymous"
    page = gql(client, JOURNAL)["data"]["journal"]
    node = page["edges"][0]["node"]
    assert node["hash"] == note["hash"] and node["payload"] == '{"text":"hello"}'
    assert page["totalCount"] == 1 and page["pageInfo"]["hasNextPage"] is False
    state = gql(client, "{ head { seq hash projected } verify { ok checked firstBad reason } }")["data"]
    assert state["head"] == {"seq": 1, "hash": note["hash"], "projected": 1}
    assert state["verify"] == {"ok": True, "checked": 1, "firstBad": None, "reason": None}


def test_journal_pages_with_cursors(client: TestClient) -> None:
    for i in range(7):
        gql(client, NOTE, {"t": f"n{i}"})
    seen, after = [], None
    while True:
        page = gql(client, JOURNAL, {"first": 3, "after": after})["data"]["journal"]
        seen += [edge["node"]["seq"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == list(range(1, 8))


@pytest.mark.parametrize(
    ("query", "variables", "expected"),
    [
        (NOTE, {"t": ""}, "text must be a non-empty string"),
        (NOTE, {"t": "x" * 10_001}, "at most 10000"),
        (NOTE, {"t": 5}, "String cannot represent"),
        ("mutation { note(text: 5) { seq } }", None, "String cannot represent"),
        (JOURNAL, {"first": 0}, "first must be between 1 and 500"),
        (JOURNAL, {"first": 10_000}, "first must be between 1 and 500"),
        (JOURNAL, {"after": "bm90LWEtY3Vyc29y"}, "is not a journal cursor"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(client: TestClient, query: str,
                                                       variables: dict[str, Any] | None, expected: str) -> None:
    gql(client, NOTE, {"t": "kept"})
    body = gql(client, query, variables)
    assert body.get("data") is None or all(v is None for v in body["data"].values())
    assert expected in body["errors"][0]["message"]
    assert gql(client, "{ head { seq } }")["data"]["head"]["seq"] == 1


def test_bad_input_names_the_field(client: TestClient) -> None:
    error = gql(client, NOTE, {"t": " "})["errors"][0]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": "text"}


def test_health_and_readiness(client: TestClient, backend: Backend) -> None:
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["backend"] == backend.name
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["backend"] == backend.name


def test_an_entry_survives_a_restart(backend: Backend) -> None:
    settings = backend.settings()
    with TestClient(create_app(settings)) as first:
        written = gql(first, NOTE, {"t": "durable"})["data"]["note"]
    with TestClient(create_app(settings)) as second:
        body = gql(second, JOURNAL + "\n", {})["data"]["journal"]
        assert body["edges"][0]["node"]["hash"] == written["hash"]
        assert gql(second, "{ verify { ok } }")["data"]["verify"]["ok"] is True


def test_health_answers_while_a_verify_runs(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: verify replayed the whole journal on the event loop; one verify froze every
    # request, /healthz included, until it was done.
    import threading

    from graph_service.service import Service

    gql(client, NOTE, {"t": "something to verify"})
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    real_verify = Service.verify_apart  # the API's verify (in a process of its own)

    def parked_verify(self: Service, *args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait(30)
        try:
            return real_verify(self, *args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(Service, "verify_apart", parked_verify)
    answers: list[Any] = []
    verifying = threading.Thread(target=lambda: answers.append(gql(client, "{ verify { ok } }")))
    verifying.start()
    assert started.wait(10)
    health = client.get("/healthz")
    still_parked = not finished.is_set()
    release.set()
    verifying.join(30)
    assert health.status_code == 200 and still_parked  # answered while the verify was still running
    assert answers == [{"data": {"verify": {"ok": True}}}]
