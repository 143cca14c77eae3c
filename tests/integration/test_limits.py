"""Abuse limits: refused before any resolver runs (the journal head does not move), and masked errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import strawberry
from starlette.testclient import TestClient

from graph_service.api.access import Role
from graph_service.api.app import create_app
from graph_service.api.limits import MAX_BODY_BYTES
from graph_service.api.schema import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS, build_schema
from graph_service.config import Settings
from graph_service.journal.store import Journal
from tests.backends import Backend

NOTE = 'mutation Write { note(text: "abuse") { seq } }'


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.delenv("GRAPH_SERVICE_TOKENS_JSON", raising=False)
    with TestClient(create_app(backend.settings())) as c:
        yield c


def post(client: TestClient, query: str, **extra: Any) -> dict[str, Any]:
    # ASCII JSON (\uXXXX escapes), as a client would send text its own encoder cannot put in UTF-8.
    response = client.post("/graphql", content=json.dumps({"query": query, **extra}),
                           headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text
    return response.json()


def head_seq(client: TestClient) -> int:
    return post(client, "{ head { seq } }")["data"]["head"]["seq"]


def nested(field: str, levels: int, leaf: str) -> str:
    selection = leaf
    for _ in range(levels):
        selection = f"{field} {{ {selection} }}"
    return selection


def test_the_note_alone_is_accepted(client: TestClient) -> None:
    # The control for the cases below: the same mutation without the abuse writes.
    assert post(client, NOTE)["data"]["note"]["seq"] == 1


@strawberry.type
class Chain:
    @strawberry.field
    def next(self) -> Chain:
        return Chain()


WRITES: list[int] = []


@strawberry.type
class ChainQuery:
    @strawberry.field
    def chain(self) -> Chain:
        return Chain()


@strawberry.type
class ChainMutation:
    @strawberry.mutation
    def write(self) -> Chain:
        WRITES.append(1)
        return Chain()


def test_too_deep_a_mutation_runs_nothing() -> None:
    # The service's own extensions on a schema deep enough to abuse: nothing is written.
    deep = strawberry.Schema(query=ChainQuery, mutation=ChainMutation, extensions=build_schema().extensions)
    WRITES.clear()
    refused = deep.execute_sync(f"mutation {{ write {{ {nested('next', MAX_DEPTH, '__typename')} }} }}",
                                context_value={"role": Role.ADMIN})
    assert refused.data is None and WRITES == []
    assert "exceeds maximum operation depth" in refused.errors[0].message
    allowed = deep.execute_sync(f"mutation {{ write {{ {nested('next', MAX_DEPTH - 2, '__typename')} }} }}",
                                context_value={"role": Role.ADMIN})
    assert allowed.errors is None and WRITES == [1]


def test_a_too_deep_operation_in_the_document_refuses_it_all(client: TestClient) -> None:
    body = post(client, f"{NOTE}\nquery Deep {{ {nested('journal', MAX_DEPTH + 1, 'totalCount')} }}",
                operationName="Write")
    assert body["data"] is None
    assert any("exceeds maximum operation depth" in e["message"] for e in body["errors"])
    assert head_seq(client) == 0


def test_too_many_aliases_run_nothing(client: TestClient) -> None:
    aliased = " ".join(f'a{i}: note(text: "n{i}") {{ seq }}' for i in range(MAX_ALIASES + 1))
    body = post(client, f"mutation {{ {aliased} }}")
    assert body["data"] is None
    assert f"{MAX_ALIASES + 1} aliases found" in body["errors"][0]["message"]
    assert head_seq(client) == 0


def test_too_many_tokens_run_nothing(client: TestClient) -> None:
    body = post(client, 'mutation { note(text: "x") { ' + "seq " * MAX_TOKENS + "} }")
    assert body["data"] is None
    assert f"more than {MAX_TOKENS} tokens" in body["errors"][0]["message"]
    assert head_seq(client) == 0


@pytest.mark.parametrize(
    ("query", "variables", "field"),
    [
        # Found by the fuzzer: each of these reached FalkorDB and failed after the journal entry was
        # written (the head moved, the graph lagged), or stored a string unequal to the journal's.
        ('mutation { declareObserver(observer: "cam\\u0000") { id } }', None, "observer"),
        ('mutation { createBelief(proposition: "x\\u0000 y") { seq } }', None, "proposition"),
        ('mutation { addItem(item: {kind: fact, body: {s: "a\\u0000", r: "b", o: "c"}, source: person}) '
         '{ id } }', None, "item"),
        ("mutation($s: String!) { sameEntity(subject: $s, other: \"b\") { seq } }", {"s": "a\x00"}, "s"),
        ("mutation($i: ItemInput!) { addItem(item: $i) { id } }",
         {"i": {"kind": "fact", "body": {"s": "a", "r": "b", "o": ["c\x00"]}, "source": "person"}}, "i"),
        ('{ observation(id: "obs\\u0000") { id } }', None, "id"),
        # Found in review: a lone surrogate is not UTF-8; it failed as an internal error.
        ("mutation($t: String!) { note(text: $t) { seq } }", {"t": "bad \ud800 text"}, "t"),
        ("query($i: String!) { item(id: $i) { id } }", {"i": "\udfff"}, "i"),
    ],
)
def test_a_nul_character_in_a_string_is_refused_and_writes_nothing(client: TestClient, query: str,
                                                                   variables: dict[str, Any] | None,
                                                                   field: str) -> None:
    post(client, NOTE)
    body = post(client, query, variables=variables or {})
    assert body.get("data") is None
    error = body["errors"][0]
    assert "must not contain the NUL character" in error["message"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert head_seq(client) == 1
    verify = post(client, "{ verify { ok projectionOk } }")["data"]["verify"]
    assert verify == {"ok": True, "projectionOk": True}


def test_a_mutation_over_get_is_refused_and_writes_nothing(client: TestClient) -> None:
    response = client.get("/graphql", params={"query": NOTE})
    assert response.status_code == 400
    assert "mutations are not allowed when using GET" in response.text
    assert client.get("/graphql", params={"query": "{ head { seq } }"}).json() == {"data": {"head": {"seq": 0}}}


def test_an_oversized_body_is_413_and_writes_nothing(client: TestClient) -> None:
    text = "x" * MAX_BODY_BYTES
    response = client.post("/graphql", json={"query": "mutation($t: String!) { note(text: $t) { seq } }",
                                             "variables": {"t": text}})
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"] == {"code": "PAYLOAD_TOO_LARGE"}
    assert head_seq(client) == 0


def test_an_oversized_body_without_content_length_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"query": "mutation { note(text: \\"'
        for _ in range(MAX_BODY_BYTES // 4096 + 1):
            yield b"x" * 4096
        yield b'\\") { seq } }"}'

    response = client.post("/graphql", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert head_seq(client) == 0


def test_a_body_under_the_cap_passes(client: TestClient) -> None:
    body = post(client, "mutation($t: String!) { note(text: $t) { seq } }", variables={"t": "y" * 5_000})
    assert body == {"data": {"note": {"seq": 1}}}


def test_internal_errors_are_masked(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Journal) -> dict[str, Any]:
        raise RuntimeError("MATCH (n) /secret/path")

    monkeypatch.setattr(Journal, "stored_head", broken)
    response = client.post("/graphql", json={"query": "{ head { seq } }"})
    assert response.status_code == 200
    assert response.json()["errors"][0]["message"] == "Unexpected error."
    for leak in ("MATCH", "/secret/path", "Traceback", "RuntimeError", ".py"):
        assert leak not in response.text


def settings_with(backend: Backend, **flags: bool) -> Settings:
    return backend.settings(**flags)


@pytest.mark.parametrize("introspection", [True, False])
def test_introspection_follows_settings(backend: Backend, introspection: bool) -> None:
    with TestClient(create_app(settings_with(backend, introspection=introspection))) as c:
        body = post(c, "{ __schema { queryType { name } } }")
        if introspection:
            assert body == {"data": {"__schema": {"queryType": {"name": "Query"}}}}
        else:
            assert body["data"] is None and "introspection" in body["errors"][0]["message"].lower()
            assert post(c, "{ head { seq } }") == {"data": {"head": {"seq": 0}}}


@pytest.mark.parametrize("graphiql", [True, False])
def test_graphiql_follows_settings(backend: Backend, graphiql: bool) -> None:
    with TestClient(create_app(settings_with(backend, graphiql=graphiql))) as c:
        response = c.get("/graphql", headers={"Accept": "text/html"})
        if graphiql:
            assert response.status_code == 200 and "graphiql" in response.text.lower()
        else:
            assert response.status_code == 404
            assert "graphiql" not in response.text.lower() and "<html" not in response.text.lower()
