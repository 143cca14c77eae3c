"""Bearer tokens and the field policy: every root field × every role, generated from the schema itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import graphql
import pytest
import strawberry
from starlette.testclient import TestClient, WebSocketDenialResponse
from strawberry.types.graphql import OperationType

from graph_service.api.access import FIELD_ROLES, FieldAccessRule, Role, TokenTable, required_role
from graph_service.api.app import create_app
from graph_service.api.schema import build_schema
from graph_service.api.validating import Validation
from graph_service.config import Settings
from tests.backends import Backend

TOKENS = {f"token-{role.label}": role.label for role in Role}
PROTOCOL = "graphql-transport-ws"


def bearer(role: Role) -> dict[str, str]:
    return {"Authorization": f"Bearer token-{role.label}"}


def gql(client: TestClient, query: str, role: Role | None = Role.ADMIN, **extra: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, **extra}, headers=bearer(role) if role else {})
    assert response.status_code == 200, response.text
    return response.json()


def head_seq(client: TestClient) -> int:
    return gql(client, "{ head { seq } }")["data"]["head"]["seq"]


def write_note(client: TestClient, text: str = "seed") -> None:
    body = gql(client, 'mutation($t: String!) { note(text: $t) { seq } }', variables={"t": text})
    assert "errors" not in body, body


@pytest.fixture(scope="module")
def client(module_backend: Backend) -> Iterator[TestClient]:
    tokens_file = module_backend.data_dir.parent / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS))
    with TestClient(create_app(module_backend.settings(tokens_file=tokens_file))) as c:
        write_note(c)
        yield c


# --- the generated matrix -----------------------------------------------------------------------


def literal(type_: graphql.GraphQLInputType) -> str:
    """A valid literal of a GraphQL input type, for a required argument."""
    if isinstance(type_, graphql.GraphQLNonNull):
        return literal(type_.of_type)
    if isinstance(type_, graphql.GraphQLList):
        return f"[{literal(type_.of_type)}]"
    if isinstance(type_, graphql.GraphQLEnumType):
        return next(iter(type_.values))
    if isinstance(type_, graphql.GraphQLInputObjectType):
        fields = [f"{name}: {literal(f.type)}" for name, f in type_.fields.items()
                  if graphql.is_required_input_field(f)]
        return "{" + ", ".join(fields) + "}"
    return {"Int": "1", "Float": "1.0", "Boolean": "false"}.get(type_.name, '"matrix"')


def operation_for(operation_type: str, name: str, field: graphql.GraphQLField) -> str:
    """The smallest valid operation selecting one root field."""
    args = [f"{arg}: {literal(a.type)}" for arg, a in field.args.items() if graphql.is_required_argument(a)]
    call = f"{name}({', '.join(args)})" if args else name
    selection = " { __typename }" if graphql.is_composite_type(graphql.get_named_type(field.type)) else ""
    return f"{operation_type} {{ {call}{selection} }}"


def root_field_cases() -> list[tuple[str, str, str]]:
    sdl_schema = graphql.build_schema(build_schema().as_str())
    roots = {"query": sdl_schema.query_type, "mutation": sdl_schema.mutation_type,
             "subscription": sdl_schema.subscription_type}
    return [(kind, name, operation_for(kind, name, field))
            for kind, root in roots.items() if root is not None for name, field in root.fields.items()]


CASES = root_field_cases()


def test_the_matrix_covers_every_kind_of_root() -> None:
    assert {kind for kind, _, _ in CASES} == {"query", "mutation", "subscription"}


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.label)
@pytest.mark.parametrize(("kind", "field", "operation"), CASES, ids=[f"{k}.{f}" for k, f, _ in CASES])
def test_every_root_field_for_every_role(client: TestClient, kind: str, field: str, operation: str,
                                         role: Role) -> None:
    allowed = role >= required_role(kind, field)
    before = head_seq(client)
    if kind == "subscription":
        errors = first_subscription_errors(client, operation, role)
    else:
        errors = gql(client, operation, role).get("errors") or []
    forbidden = [e for e in errors if e.get("extensions", {}).get("code") == "FORBIDDEN"]
    if allowed:
        assert not forbidden, errors
        assert not any("Cannot query field" in e["message"] for e in errors), errors
    else:
        assert [e["extensions"] for e in forbidden] == [
            {"code": "FORBIDDEN", "field": field, "requiredRole": required_role(kind, field).label}]
        assert field in forbidden[0]["message"] and required_role(kind, field).label in forbidden[0]["message"]
        assert head_seq(client) == before  # nothing ran


def first_subscription_errors(client: TestClient, operation: str, role: Role) -> list[dict[str, Any]]:
    # The journal holds an entry, so an admitted subscription yields at once; a refused one errors at once.
    with client.websocket_connect("/graphql", subprotocols=[PROTOCOL], headers=bearer(role)) as ws:
        ws.send_json({"type": "connection_init"})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json({"type": "subscribe", "id": "1", "payload": {"query": operation}})
        message = ws.receive_json()
        ws.send_json({"type": "complete", "id": "1"})
    if message["type"] == "error":
        return message["payload"]
    return message["payload"].get("errors") or []


# --- the policy table ---------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["correctBelief", "markInaccurate", "doNotInfer", "sameEntity", "differentEntity",
                                   "resolveDispute", "answerQuestion"])
def test_corrections_and_resolution_need_operator(field: str) -> None:
    assert required_role(OperationType.MUTATION, field) is Role.OPERATOR


@pytest.mark.parametrize("field", ["rebuild", "export"])
def test_rebuild_and_export_need_admin_whatever_the_operation(field: str) -> None:
    assert required_role("mutation", field) is Role.ADMIN
    assert required_role("query", field) is Role.ADMIN


def test_defaults_and_that_the_table_only_raises() -> None:
    assert required_role("query", "anything") is Role.READER
    assert required_role("subscription", "anything") is Role.READER
    assert required_role("mutation", "anything") is Role.WRITER
    assert all(role >= Role.WRITER for role in FIELD_ROLES.values())
    assert Role.READER < Role.WRITER < Role.OPERATOR < Role.ADMIN


# --- the extension on a schema with privileged fields -------------------------------------------


CALLS: list[str] = []


@strawberry.type
class _Query:
    @strawberry.field
    def ping(self) -> str:
        CALLS.append("ping")
        return "pong"


@strawberry.type
class _Mutation:
    @strawberry.mutation
    def rebuild(self) -> int:
        CALLS.append("rebuild")
        return 1

    @strawberry.mutation
    def correct_belief(self) -> int:
        CALLS.append("correctBelief")
        return 1

    @strawberry.mutation
    def note(self) -> int:
        CALLS.append("note")
        return 1


PRIVILEGED = strawberry.Schema(query=_Query, mutation=_Mutation, extensions=[lambda: Validation([FieldAccessRule])])


def run(query: str, role: Role | None, **kwargs: Any) -> strawberry.types.ExecutionResult:
    CALLS.clear()
    return PRIVILEGED.execute_sync(query, context_value={"role": role}, **kwargs)


@pytest.mark.parametrize(
    "query",
    [
        "mutation { rebuild }",
        "mutation { x: rebuild }",
        "mutation { note ... on Mutation { rebuild } }",
        "mutation { ...F } fragment F on Mutation { note again: rebuild }",
        "mutation { ...F } fragment F on Mutation { ...G } fragment G on Mutation { rebuild }",
    ],
)
def test_admin_fields_are_refused_through_aliases_and_fragments(query: str) -> None:
    result = run(query, Role.OPERATOR)
    assert result.data is None and CALLS == []
    assert [e.extensions for e in result.errors] == [{"code": "FORBIDDEN", "field": "rebuild", "requiredRole": "admin"}]
    assert result.errors[0].message == "Field 'rebuild' needs the admin role; the request's role is operator."
    assert run(query, Role.ADMIN).errors is None and "rebuild" in CALLS


def test_each_refused_field_is_named_once() -> None:
    result = run("mutation { a: rebuild b: rebuild correctBelief note }", Role.WRITER)
    assert sorted(e.extensions["field"] for e in result.errors) == ["correctBelief", "rebuild"]
    assert CALLS == []


def test_operator_may_correct_but_not_rebuild() -> None:
    assert run("mutation { correctBelief note }", Role.OPERATOR).errors is None
    assert CALLS == ["correctBelief", "note"]


def test_only_the_chosen_operation_is_checked() -> None:
    document = "query Read { ping } mutation Write { rebuild }"
    assert run(document, Role.READER, operation_name="Read").errors is None and CALLS == ["ping"]
    refused = run(document, Role.READER, operation_name="Write")
    assert refused.errors[0].extensions["code"] == "FORBIDDEN" and CALLS == []


def test_a_request_without_a_role_is_refused_everything() -> None:
    result = run("{ ping __typename }", None)
    assert {e.extensions["field"] for e in result.errors} == {"ping", "__typename"}
    assert "carries no role" in result.errors[0].message and CALLS == []


# --- the gate -----------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "token-admin"},
                                     {"Authorization": "Basic token-admin"}, {"Authorization": "Bearer "}])
def test_missing_or_invalid_token_is_401(client: TestClient, headers: dict[str, str]) -> None:
    before = head_seq(client)
    response = client.post("/graphql", json={"query": 'mutation { note(text: "x") { seq } }'}, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["errors"][0]["extensions"] == {"code": "UNAUTHENTICATED"}
    assert client.get("/graphql", params={"query": "{ head { seq } }"}, headers=headers).status_code == 401
    assert head_seq(client) == before


def test_websocket_without_a_valid_token_is_401(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer nope"}):
        with pytest.raises(WebSocketDenialResponse) as denied:
            client.websocket_connect("/graphql", subprotocols=[PROTOCOL], headers=headers).__enter__()
        assert denied.value.status_code == 401
        assert denied.value.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_probes_need_no_token(client: TestClient) -> None:
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").json()["status"] == "ready"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", "not JSON"),
        ('["a"]', "expected a JSON object"),
        ("{}", "names no tokens"),
        ('{"secret-1": "superuser"}', "entry 1: 'superuser' is not a role"),
        ('{"secret-1": null}', "entry 1: None is not a role"),
        ('{"secret-1": ""}', "is not a role"),
        ('{" ": "reader"}', "empty token"),
    ],
)
def test_bad_token_configuration_stops_start_up_without_echoing_tokens(text: str, expected: str) -> None:
    with pytest.raises(ValueError, match=expected) as refused:
        TokenTable.load(Settings(), {"GRAPH_SERVICE_TOKENS_JSON": text})
    assert "secret-1" not in str(refused.value)


def test_a_token_with_two_roles_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text('{"t": "reader"}')
    with pytest.raises(ValueError, match="two different roles"):
        TokenTable.load(Settings(tokens_file=path), {"GRAPH_SERVICE_TOKENS_JSON": '{"t": "admin"}'})
    table = TokenTable.load(Settings(tokens_file=path), {"GRAPH_SERVICE_TOKENS_JSON": '{"u": "Admin"}'})
    assert table.role_for("Bearer t") is Role.READER and table.role_for("bearer u") is Role.ADMIN


def test_a_missing_tokens_file_stops_start_up(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read it"):
        TokenTable.load(Settings(tokens_file=tmp_path / "absent.json"), {})
