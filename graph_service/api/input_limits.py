"""Limits on what arguments carry, checked during validation so nothing runs: how deep a value nests
and how long its strings are.

One rule for every argument of every field, literal or variable, input objects and JSON values
included, so a field added later is held to it without a line of its own:
- depth: a list or object nested deeper than MAX_INPUT_DEPTH levels is refused (the validators and
  the executor recurse over values; nothing the service stores nests anywhere near as deep);
- length, by what a string is (its argument's or input field's name says): ids and cursors at most
  ID_MAX characters, names (actors, kinds, statuses, subjects, …) NAME_MAX, free text (a note, a
  reason, a proposition, a statement) TEXT_MAX; a string inside a JSON value is capped as free text
  and a JSON object's keys as names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    ArgumentNode,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    OperationDefinitionNode,
    Undefined,
    ValidationContext,
    ValidationRule,
    value_from_ast_untyped,
)

from graph_service.api.validating import REQUEST_RULES, operation_validated
from graph_service.stream.rows import MAX_NAME_CHARS

MAX_INPUT_DEPTH = 32
ID_MAX = 512
NAME_MAX = MAX_NAME_CHARS  # the domains' own cap on a name (observers, speakers): one limit, not two
TEXT_MAX = 20_000

# Arguments and input fields whose strings are free text or ids; any other string is a name.
FREE_TEXT = frozenset({"text", "why", "reason", "note", "proposition", "summary", "situation", "decisions",
                       "affects", "factor", "extraClaims"})
IDS = frozenset({"id", "ids", "after", "belief", "evidence", "flag", "observation", "a", "b", "rootId", "rootIds",
                 "derivedFrom", "supersedes", "skip", "retracted", "question", "parent", "key", "other"})
KINDS = {"free text": TEXT_MAX, "ids": ID_MAX, "names": NAME_MAX}


def kind_of(name: str) -> str:
    """What a string given under this argument or input field name is: free text, an id or a name."""
    return "free text" if name in FREE_TEXT else "ids" if name in IDS else "names"


def depth_beyond(value: object, limit: int) -> bool:
    """Does `value` nest lists or objects more than `limit` levels deep? Iterative: any depth is safe."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Mapping):
            children: Any = current.values()
        elif isinstance(current, list | tuple):
            children = current
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _unwrap(type_: GraphQLInputType) -> GraphQLInputType:
    return type_.of_type if isinstance(type_, GraphQLNonNull) else type_


def input_problem(value: object, type_: GraphQLInputType, name: str) -> str | None:
    """What is wrong with an argument's value under these limits, naming where; None if nothing is."""
    if depth_beyond(value, MAX_INPUT_DEPTH):
        return f"{name} is nested deeper than {MAX_INPUT_DEPTH} levels"
    # (value, its schema type or None inside a JSON value, its path, the schema name that says its kind)
    stack: list[tuple[object, GraphQLInputType | None, str, str]] = [(value, type_, name, name)]
    while stack:
        current, current_type, path, field = stack.pop()
        current_type = _unwrap(current_type) if current_type is not None else None
        if isinstance(current_type, GraphQLList):
            items = current if isinstance(current, list) else [current]
            stack.extend((item, current_type.of_type, f"{path}[{i}]", field) for i, item in enumerate(items))
        elif isinstance(current_type, GraphQLInputObjectType):
            if isinstance(current, Mapping):
                for key, child in current.items():
                    child_field = current_type.fields.get(key)
                    if child_field is not None:  # an unknown field is another rule's error
                        stack.append((child, child_field.type, f"{path}.{key}", key))
        elif isinstance(current_type, GraphQLScalarType) and current_type.name in ("String", "ID"):
            if isinstance(current, str) and (problem := _too_long(current, path, kind_of(field))):
                return problem
        elif current_type is None or (isinstance(current_type, GraphQLScalarType)
                                       and current_type.name not in ("Int", "Float", "Boolean", "Long")):
            # A JSON value (or any custom scalar): strings are free text, object keys names.
            if isinstance(current, str) and (problem := _too_long(current, path, "free text")):
                return problem
            if isinstance(current, Mapping):
                for key, child in current.items():
                    if isinstance(key, str) and (problem := _too_long(key, f"{path} (a key)", "names")):
                        return problem
                    stack.append((child, None, f"{path}.{key}", field))
            elif isinstance(current, list):
                stack.extend((item, None, f"{path}[{i}]", field) for i, item in enumerate(current))
    return None


def _too_long(text: str, path: str, kind: str) -> str | None:
    cap = KINDS[kind]
    if len(text) <= cap:
        return None
    verb = "is" if kind == "free text" else "are"
    return f"{path} is {len(text)} characters long; {kind} {verb} capped at {cap}"


class InputLimitsRule(ValidationRule):
    """Reports each argument nested too deep or holding a string over its cap, during validation (a
    request rule: api/validating.Validation)."""

    def __init__(self, validation_context: ValidationContext) -> None:
        super().__init__(validation_context)
        self.given: dict[str, Any] = dict(operation_validated().variables or {})
        self.variables: dict[str, Any] = dict(self.given)

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        # A variable's default stands in for it when the request gives none: held to the same limits.
        self.variables = dict(self.given)
        for definition in node.variable_definitions or ():
            name = definition.variable.name.value
            if name not in self.variables and definition.default_value is not None:
                self.variables[name] = _untyped(definition.default_value, {})

    def enter_argument(self, node: ArgumentNode, *_: Any) -> None:
        argument = self.context.get_argument()
        if argument is None:  # an unknown argument is another rule's error
            return
        name = node.name.value
        value = _untyped(node.value, self.variables)
        problem = (f"{name} is nested deeper than {MAX_INPUT_DEPTH} levels" if value is _TOO_DEEP
                   else None if value is Undefined else input_problem(value, argument.type, name))
        if problem is not None:
            self.report_error(GraphQLError(problem, node, extensions={"code": "BAD_USER_INPUT", "field": name}))


_TOO_DEEP = object()


def _untyped(node: Any, variables: dict[str, Any]) -> Any:
    try:
        return value_from_ast_untyped(node, variables)
    except RecursionError:  # a literal the parser could hold but a recursive walk cannot
        return _TOO_DEEP


REQUEST_RULES.add(InputLimitsRule)
