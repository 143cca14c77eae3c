"""The argument limits through the API: caps per kind of string and the depth limit, on literals,
variables and variables' defaults; refused during validation, so nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.input_limits import ID_MAX, MAX_INPUT_DEPTH, NAME_MAX, TEXT_MAX
from tests.integration.graphql_client import gql

SAY = "mutation($t: String!, $s: String!) { say(text: $t, speaker: $s, tick: 1) { seq } }"


def head(client: TestClient) -> int:
    return gql(client, "{ head { seq } }")["data"]["head"]["seq"]


def refused(client: TestClient, query: str, variables: dict[str, Any] | None, field: str) -> str:
    body = gql(client, query, variables)
    assert body.get("data") is None, body
    error = body["errors"][0]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert head(client) == 0
    return error["message"]


def test_strings_at_their_caps_are_accepted(client: TestClient) -> None:
    assert gql(client, SAY, {"t": "t" * 10_000, "s": "b" * NAME_MAX})["data"]["say"]["seq"] == 1
    unknown = gql(client, 'query($i: String!) { item(id: $i) { id } }', {"i": "i" * ID_MAX})["errors"][0]
    assert unknown["extensions"]["code"] == "NOT_FOUND"


def test_a_name_over_its_cap_is_refused_naming_the_argument(client: TestClient) -> None:
    # Regression (issue 13): a name (then `by`, which is gone: the author is the principal) took 200,000 characters.
    message = refused(client, SAY, {"t": "x", "s": "b" * 200_000}, "speaker")
    assert message == f"speaker is 200000 characters long; names are capped at {NAME_MAX}"
    literal = f'mutation {{ say(text: "x", speaker: "{"b" * (NAME_MAX + 1)}", tick: 1) {{ seq }} }}'
    assert refused(client, literal, None, "speaker").startswith(f"speaker is {NAME_MAX + 1} characters long")


def test_free_text_and_ids_have_their_own_caps(client: TestClient) -> None:
    say = "mutation($t: String!) { say(text: $t, speaker: \"ann\", tick: 1) { seq } }"
    assert "free text is capped at" in refused(client, say, {"t": "x" * (TEXT_MAX + 1)}, "text")
    retract = 'mutation($i: String!) { retractItem(id: $i, why: "w") { seq } }'
    assert "ids are capped at" in refused(client, retract, {"i": "i" * (ID_MAX + 1)}, "id")


def test_inside_input_objects_and_json_the_argument_is_named(client: TestClient) -> None:
    add = "mutation($i: ItemInput!) { addItem(item: $i) { id } }"
    # The kind was the example of a name inside an input object; it is an enum now (issue 13 part 4),
    # so `level`, still a free name, stands in.
    long_level = {"kind": "fact", "body": {"s": "a", "r": "b", "o": "c"}, "source": "person",
                  "level": "k" * (NAME_MAX + 1)}
    assert refused(client, add, {"i": long_level}, "item").startswith("item.level is")
    long_o = {"kind": "fact", "body": {"s": "a", "r": "b", "o": "o" * (TEXT_MAX + 1)}, "source": "person"}
    assert refused(client, add, {"i": long_o}, "item").startswith("item.body.o is")


def test_a_variables_default_is_held_to_the_caps(client: TestClient) -> None:
    query = f'mutation($s: String! = "{"b" * (NAME_MAX + 1)}") {{ say(text: "x", speaker: $s, tick: 1) {{ seq }} }}'
    assert refused(client, query, None, "speaker").startswith("speaker is")


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def test_json_arguments_nest_at_most_the_limit(client: TestClient) -> None:
    flag = "mutation($s: JSON) { raiseFlag(why: \"drift\", scope: $s) { id } }"
    deep = json.dumps(nested(MAX_INPUT_DEPTH))
    literal = f'mutation {{ raiseFlag(why: "drift", scope: {{kind: {deep}}}) {{ id }} }}'
    assert refused(client, literal, None, "scope") == f"scope is nested deeper than {MAX_INPUT_DEPTH} levels"
    within = gql(client, flag, {"s": {"kind": nested(MAX_INPUT_DEPTH - 1)}})
    assert within.get("data") and within["data"]["raiseFlag"]["id"], within


def test_two_operations_and_no_operation_name_is_an_error(client: TestClient) -> None:
    # Regression (issue 13): the first operation ran (the spec says the request must name one).
    document = 'mutation Write { note(text: "x") { seq } } query Read { head { seq } }'
    body = client.post("/graphql", json={"query": document}).json()
    assert body["data"] is None
    assert body["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": "operationName"}
    assert "2 operations" in body["errors"][0]["message"]
    assert head(client) == 0
    named = client.post("/graphql", json={"query": document, "operationName": "Write"}).json()
    assert named == {"data": {"note": {"seq": 1}}}


@pytest.mark.parametrize("query", [
    "{ haed { seq } }",  # a field
    "{ head { seqq } }",  # a field of a type
    '{ journal(frist: 1) { totalCount } }',  # an argument
    "query($f: ItemFilte) { items(filter: $f) { totalCount } }",  # a type
    '{ items(filter: {stauts: "active"}) { totalCount } }',  # an input field
])
@pytest.mark.parametrize("introspection", [True, False])
def test_suggestions_follow_introspection(backend: Any, query: str, introspection: bool) -> None:
    # Regression (issue 13): with introspection off, "Did you mean" still named the schema's fields.
    from graph_service.api.app import create_app

    with TestClient(create_app(backend.settings(introspection=introspection))) as c:
        body = c.post("/graphql", json={"query": query}).json()
    messages = " ".join(e["message"] for e in body["errors"])
    assert ("Did you mean" in messages) is introspection, messages
