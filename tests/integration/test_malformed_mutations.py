"""Every mutation of the schema, sent malformed: a required argument missing, a non-null one null, each
argument of the wrong type, blank, over its length cap, a JSON value nested too deep (as a literal and
as a variable), and the same inside input objects. For every request: no HTTP 5xx, no masked internal
error ("Unexpected error."), and the journal head does not move.

The mutations and their arguments come from the schema as the code builds it now, so a mutation
added later is swept without a line here. Each variant starts from arguments of the right shape
("plausible": a write would succeed for many mutations) and breaks exactly one thing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import graphql
import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.api.input_limits import MAX_INPUT_DEPTH, TEXT_MAX
from graph_service.api.schema import build_schema
from tests.backends import Backend

SCHEMA = graphql.build_schema(build_schema().as_str())
MUTATIONS = sorted(SCHEMA.mutation_type.fields)
MASKED = "Unexpected error."
HEAD = "{ head { seq hash } }"
SCALAR_VALUES: dict[str, Any] = {"String": "x", "ID": "x", "Int": 1, "Float": 0.5, "Boolean": True, "Long": 1,
                                 "JSON": {}}
# A value of another type for each kind of input: what a confused client sends.
WRONG: dict[str, Any] = {"String": 12345, "ID": 1.5, "Int": "x", "Float": "x", "Boolean": "x", "Long": "x",
                         "input": "x", "list": {"not": "a list"}}


def deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def plausible(type_: graphql.GraphQLInputType) -> Any:
    """A value of the right shape for `type_`: required input fields filled, lists of one."""
    type_ = graphql.get_nullable_type(type_)
    if isinstance(type_, graphql.GraphQLList):
        return [plausible(type_.of_type)]
    if isinstance(type_, graphql.GraphQLInputObjectType):
        return {name: plausible(f.type) for name, f in type_.fields.items() if graphql.is_required_input_field(f)}
    if isinstance(type_, graphql.GraphQLEnumType):
        return next(iter(type_.values))
    return SCALAR_VALUES[type_.name]


def base_kind(type_: graphql.GraphQLInputType) -> str:
    nullable = graphql.get_nullable_type(type_)
    if isinstance(nullable, graphql.GraphQLList):
        return "list"
    if isinstance(nullable, graphql.GraphQLInputObjectType):
        return "input"
    return nullable.name


@dataclass(frozen=True)
class Variant:
    what: str
    args: dict[str, Any]  # argument values, sent as variables; a missing key is an argument left out
    literal: str | None = None  # one argument written into the document instead: "name: <GraphQL literal>"


def breakages(name: str, type_: graphql.GraphQLInputType, value: Any) -> Iterator[tuple[str, Any]]:
    """(what, a malformed value) for one argument or input field whose right-shaped value is `value`."""
    kind = base_kind(type_)
    if graphql.is_non_null_type(type_):
        yield f"{name} null", None
    if kind != "JSON":
        yield f"{name} of the wrong type", WRONG.get(kind, WRONG["input"])
    nullable = graphql.get_nullable_type(type_)
    item_type = graphql.get_nullable_type(nullable.of_type) if isinstance(nullable, graphql.GraphQLList) else nullable
    if isinstance(item_type, graphql.GraphQLScalarType) and item_type.name in ("String", "ID"):
        wrap = (lambda v: [v]) if kind == "list" else (lambda v: v)
        yield f"{name} blank", wrap("   ")
        yield f"{name} empty", wrap("")
        yield f"{name} huge", wrap("x" * (TEXT_MAX + 1))
    if kind == "JSON" or (isinstance(item_type, graphql.GraphQLScalarType) and item_type.name == "JSON"):
        yield f"{name} nested {MAX_INPUT_DEPTH + 1} deep", deep(MAX_INPUT_DEPTH + 1)
    if isinstance(item_type, graphql.GraphQLInputObjectType):
        item = value[0] if kind == "list" else value
        for field_name, field in item_type.fields.items():
            inner = item.get(field_name, plausible(field.type))
            if graphql.is_required_input_field(field):
                yield f"{name}.{field_name} missing", _wrap_item(kind, {k: v for k, v in item.items()
                                                                        if k != field_name})
            for what, bad in breakages(f"{name}.{field_name}", field.type, inner):
                yield what, _wrap_item(kind, {**item, field_name: bad})


def _wrap_item(kind: str, item: dict[str, Any]) -> Any:
    return [item] if kind == "list" else item


def variants(field: graphql.GraphQLField) -> Iterator[Variant]:
    base = {name: plausible(arg.type) for name, arg in field.args.items() if graphql.is_required_argument(arg)}
    for name, arg in field.args.items():
        value = base.get(name, plausible(arg.type))
        if graphql.is_required_argument(arg):
            yield Variant(f"{name} missing", {k: v for k, v in base.items() if k != name})
        for what, bad in breakages(name, arg.type, value):
            yield Variant(what, {**base, name: bad})
        kind = base_kind(arg.type)
        if kind != "JSON":
            literal = json.dumps(WRONG.get(kind, WRONG["input"])) if kind != "input" else '"x"'
            yield Variant(f"{name} of the wrong type, as a literal", {k: v for k, v in base.items() if k != name},
                          f"{name}: {literal if kind != 'list' else '{not: 1}'}")
        if kind == "JSON":
            nested = "[" * (MAX_INPUT_DEPTH + 1) + "1" + "]" * (MAX_INPUT_DEPTH + 1)
            yield Variant(f"{name} nested {MAX_INPUT_DEPTH + 1} deep, as a literal",
                          {k: v for k, v in base.items() if k != name}, f"{name}: {nested}")
            yield Variant(f"{name} nested 600 deep", {**base, name: deep(600)})


def document(root: str, field: graphql.GraphQLField, variant: Variant) -> str:
    definitions = ", ".join(f"${name}: {field.args[name].type}" for name in variant.args)
    arguments = [f"{name}: ${name}" for name in variant.args]
    if variant.literal:
        arguments.append(variant.literal)
    returned = graphql.get_named_type(field.type)
    selection = "" if isinstance(returned, graphql.GraphQLScalarType | graphql.GraphQLEnumType) else "{ __typename }"
    header = f"mutation Sweep({definitions})" if definitions else "mutation Sweep"
    call = f"{root}({', '.join(arguments)})" if arguments else root
    return f"{header} {{ {call} {selection} }}"


@pytest.fixture(scope="module")
def client(module_backend: Backend) -> Iterator[TestClient]:
    with pytest.MonkeyPatch.context() as env:
        env.delenv("GRAPH_SERVICE_TOKENS_JSON", raising=False)  # open: every mutation is reachable
        with TestClient(create_app(module_backend.settings()), raise_server_exceptions=False) as c:
            yield c


def head(client: TestClient) -> dict[str, Any]:
    return client.post("/graphql", json={"query": HEAD}).json()["data"]["head"]


def test_the_sweep_covers_every_mutation_with_every_kind_of_breakage() -> None:
    # The sweep is only as good as its variants: every mutation gets some, and every kind occurs.
    counts = {root: sum(1 for _ in variants(SCHEMA.mutation_type.fields[root])) for root in MUTATIONS}
    assert {"note", "addItem", "createBelief", "pinBelief", "raiseFlag", "takeSnapshot"} <= set(MUTATIONS)
    assert all(n >= 3 for n in counts.values()), counts
    kinds = {v.what.split(" ", 1)[1] for root in MUTATIONS for v in variants(SCHEMA.mutation_type.fields[root])}
    for expected in ("missing", "null", "of the wrong type", "blank", "huge", f"nested {MAX_INPUT_DEPTH + 1} deep",
                     "of the wrong type, as a literal", "nested 600 deep"):
        assert expected in kinds, sorted(kinds)


@pytest.mark.parametrize("root", MUTATIONS)
def test_every_malformed_variant_of_a_mutation_is_refused_cleanly(client: TestClient, root: str) -> None:
    field = SCHEMA.mutation_type.fields[root]
    failures: list[str] = []
    for variant in variants(field):
        before = head(client)
        query = document(root, field, variant)
        response = client.post("/graphql", json={"query": query, "variables": variant.args})
        text = response.text[:400]
        if response.status_code >= 500:
            failures.append(f"{variant.what}: HTTP {response.status_code} {text}")
            continue
        body = response.json()
        errors = body.get("errors") or []
        if not errors:
            failures.append(f"{variant.what}: accepted: {text}")
        if any(e.get("message") == MASKED or (e.get("extensions") or {}).get("code") == "INTERNAL" for e in errors):
            failures.append(f"{variant.what}: an internal error: {text}")
        if "recursion" in response.text:
            failures.append(f"{variant.what}: Python's recursion showed: {text}")
        if head(client) != before:
            failures.append(f"{variant.what}: the journal head moved: {text}")
    assert not failures, f"{root}: {len(failures)} malformed variant(s) not refused cleanly:\n" + "\n".join(failures)
