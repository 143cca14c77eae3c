"""The argument limits as pure functions over GraphQL input types (no app, no database)."""

from __future__ import annotations

import sys

import graphql
import pytest

from graph_service.api.input_limits import (
    ID_MAX,
    MAX_INPUT_DEPTH,
    NAME_MAX,
    TEXT_MAX,
    depth_beyond,
    input_problem,
    kind_of,
)
from graph_service.api.schema import build_schema

SCHEMA = graphql.build_schema(build_schema().as_str())
JSON = SCHEMA.type_map["JSON"]
ITEM = SCHEMA.type_map["ItemInput"]
STRING = graphql.GraphQLString


def nested(levels: int, leaf: object = 1) -> object:
    value = leaf
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


def test_depth_is_counted_in_lists_and_objects() -> None:
    assert not depth_beyond("flat", 0) and not depth_beyond(nested(3), 3)
    assert depth_beyond(nested(4), 3)
    assert not depth_beyond(nested(MAX_INPUT_DEPTH), MAX_INPUT_DEPTH)
    assert depth_beyond(nested(MAX_INPUT_DEPTH + 1), MAX_INPUT_DEPTH)


def test_depth_past_pythons_recursion_limit_is_measured_not_raised() -> None:
    assert depth_beyond(nested(sys.getrecursionlimit() * 3), MAX_INPUT_DEPTH)


@pytest.mark.parametrize(("name", "kind", "cap"), [
    ("text", "free text", TEXT_MAX), ("why", "free text", TEXT_MAX), ("proposition", "free text", TEXT_MAX),
    ("id", "ids", ID_MAX), ("rootIds", "ids", ID_MAX), ("after", "ids", ID_MAX),
    ("observer", "names", NAME_MAX), ("speaker", "names", NAME_MAX), ("kind", "names", NAME_MAX),
])
def test_each_kind_of_string_has_its_cap(name: str, kind: str, cap: int) -> None:
    assert kind_of(name) == kind
    assert input_problem("x" * cap, STRING, name) is None
    verb = "is" if kind == "free text" else "are"
    assert input_problem("x" * (cap + 1), STRING, name) == (
        f"{name} is {cap + 1} characters long; {kind} {verb} capped at {cap}")


def test_input_objects_are_capped_by_their_fields_names() -> None:
    # (An item's source is an enum now; an evidence row's family is still a name.)
    row = {"weight": 0.5, "family": "x" * (NAME_MAX + 1)}
    assert input_problem(row, graphql.GraphQLNonNull(SCHEMA.type_map["EvidenceInput"]), "evidence") == (
        f"evidence.family is {NAME_MAX + 1} characters long; names are capped at {NAME_MAX}")
    ids = {"kind": "fact", "body": {}, "source": "person", "derivedFrom": ["ok", "x" * (ID_MAX + 1)]}
    assert "item.derivedFrom[1] is" in input_problem(ids, ITEM, "item")


def test_json_strings_are_free_text_and_keys_names() -> None:
    assert input_problem({"s": "x" * TEXT_MAX}, JSON, "scope") is None
    assert input_problem({"s": ["x" * (TEXT_MAX + 1)]}, JSON, "scope") == (
        f"scope.s[0] is {TEXT_MAX + 1} characters long; free text is capped at {TEXT_MAX}")
    assert "(a key)" in input_problem({"k" * (NAME_MAX + 1): 1}, JSON, "scope")


def test_too_deep_a_value_is_named() -> None:
    assert input_problem(nested(MAX_INPUT_DEPTH), JSON, "scope") is None
    assert input_problem(nested(MAX_INPUT_DEPTH + 1), JSON, "scope") == (
        f"scope is nested deeper than {MAX_INPUT_DEPTH} levels")
