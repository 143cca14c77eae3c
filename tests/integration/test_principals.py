"""The author of every entry is the authenticated principal, never what the client says (both backends)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import graphql
import pytest
from starlette.testclient import TestClient

from graph_service.api.access import TokenTable
from graph_service.api.app import create_app
from graph_service.api.schema import build_schema
from graph_service.config import Settings
from graph_service.journal.store import AUTHOR_KEY
from tests.backends import Backend

TOKENS = {"t-ann": {"principal": "ann", "role": "writer"}, "t-ops": {"principal": "Ops Team", "role": "operator"},
          "t-admin": {"principal": "root", "role": "admin"}, "t-short": "writer"}
ENTRIES = "{ journal { edges { node { seq op by payload } } } }"


def post(client: TestClient, query: str, token: str | None, variables: dict[str, Any] | None = None) -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    answer = client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def entries(client: TestClient) -> list[dict[str, Any]]:
    body = post(client, ENTRIES, "t-admin")
    return [e["node"] for e in body["data"]["journal"]["edges"]]


@pytest.fixture
def client(backend: Backend, tmp_path: Path) -> Iterator[TestClient]:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    with TestClient(create_app(replace(backend.settings(), tokens_file=tokens))) as c:
        yield c


def test_no_mutation_takes_an_author_from_the_client() -> None:
    schema = graphql.build_schema(build_schema().as_str())
    offered = {name: sorted(field.args) for name, field in schema.mutation_type.fields.items() if "by" in field.args}
    assert offered == {}


def test_entries_name_the_principal_and_record_its_role(client: TestClient) -> None:
    post(client, 'mutation { note(text: "from ann") { seq } }', "t-ann")
    post(client, 'mutation { markInaccurate(rootId: "nothing", reason: "x") { seq } }', "t-ops")  # refused: no write
    post(client, 'mutation { doNotInfer(proposition: "the moon is cheese") { seq } }', "t-ops")
    post(client, 'mutation { note(text: "short form") { seq } }', "t-short")
    written = entries(client)
    assert [(e["by"], json.loads(e["payload"])[AUTHOR_KEY]) for e in written] == [
        ("ann", {"role": "writer"}), ("ops-team", {"role": "operator"}),
        (f"token-{TokenTable.parse(json.dumps({'t-short': 'writer'}), 'x').popitem()[0].hex()[:8]}",
         {"role": "writer"}),
    ]


def test_the_client_cannot_say_who_it_is(client: TestClient) -> None:
    refused = post(client, 'mutation { note(text: "forged", by: "admin") { seq } }', "t-ann")
    assert "Unknown argument 'by'" in refused["errors"][0]["message"]
    assert entries(client) == []


def test_the_author_reaches_what_the_domains_record(client: TestClient) -> None:
    belief = post(client, 'mutation { createBelief(proposition: "the pump is on") { belief { id } } }', "t-ann")
    belief_id = belief["data"]["createBelief"]["belief"]["id"]
    post(client, 'mutation($b: String!) { correctBelief(belief: $b, reason: "gauge") { seq } }', "t-ops",
         {"b": belief_id})
    versions = post(client, 'query($b: String!) { belief(id: $b) { versions { op by } } }', "t-admin",
                    {"b": belief_id})["data"]["belief"]["versions"]
    assert [(v["op"], v["by"]) for v in versions] == [("belief.create", "ann"), ("belief.correct", "ops-team")]
    assert post(client, "{ verify { ok projectionOk } }", "t-admin")["data"]["verify"] == {"ok": True,
                                                                                           "projectionOk": True}


def test_an_open_service_journals_anonymous_without_a_role(backend: Backend) -> None:
    with TestClient(create_app(backend.settings())) as open_client:
        post(open_client, 'mutation { note(text: "open") { seq } }', None)
        [entry] = [e["node"] for e in post(open_client, ENTRIES, None)["data"]["journal"]["edges"]]
    assert entry["by"] == "anonymous" and AUTHOR_KEY not in json.loads(entry["payload"])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"principal": "", "role": "writer"}, "a principal is a name"),
        ({"principal": "ann\n", "role": "writer"}, "a principal is a name"),
        ({"principal": "x" * 201, "role": "writer"}, "a principal is a name"),
        ({"principal": "ann"}, "expected"),
        ({"principal": "ann", "role": "writer", "extra": 1}, "expected"),
        ({"principal": "ann", "role": "boss"}, "'boss' is not a role"),
    ],
)
def test_bad_principals_stop_start_up_without_echoing_tokens(value: dict[str, Any], expected: str) -> None:
    with pytest.raises(ValueError, match=expected) as refused:
        TokenTable.load(Settings(), {"GRAPH_SERVICE_TOKENS_JSON": json.dumps({"secret-1": value})})
    assert "secret-1" not in str(refused.value) and "entry 1" in str(refused.value)


def test_a_token_given_two_principals_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"t": {"principal": "ann", "role": "writer"}}))
    with pytest.raises(ValueError, match="two different principals"):
        TokenTable.load(Settings(tokens_file=path),
                        {"GRAPH_SERVICE_TOKENS_JSON": json.dumps({"t": {"principal": "bob", "role": "writer"}})})
