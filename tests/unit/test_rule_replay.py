"""The request's rules replayed over a document's recorded events (api/rule_replay.py) report exactly
what graphql-core's validate reports walking the document: the same errors, in the same order, with
the same locations and extensions, whatever the request's variables, role and operationName."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import (
    BREAK,
    SKIP,
    ArgumentNode,
    GraphQLError,
    StringValueNode,
    ValidationContext,
    ValidationRule,
    parse,
    validate,
)
from graphql.validation.validate import ValidationAbortedError
from strawberry.types.execution import ExecutionContext
from strawberry.types.graphql import OperationType

from graph_service.api.access import FieldAccessRule, Role
from graph_service.api.input_limits import ID_MAX, MAX_INPUT_DEPTH, InputLimitsRule
from graph_service.api.no_nul import NulRule
from graph_service.api.operation_name import OperationNameRule
from graph_service.api.rule_replay import MAX_ERRORS, record, replay
from graph_service.api.schema import build_schema
from graph_service.api.validating import REQUEST_RULES, validating

SCHEMA = build_schema()
RULES = (FieldAccessRule, NulRule, InputLimitsRule, OperationNameRule)
BELIEF = 'query($b: String!) { belief(id: $b) { id status evidence { id weight } families { name } } }'
NOTE = 'mutation($t: String!) { note(text: $t) { seq } }'
DEEP = "[" * (MAX_INPUT_DEPTH + 2) + "]" * (MAX_INPUT_DEPTH + 2)

# (document, variables, role, operationName)
CASES: dict[str, tuple[str, dict[str, Any] | None, Role | None, str | None]] = {
    "the bar's belief read": (BELIEF, {"b": "b1.1"}, Role.READER, None),
    "an id over its cap": (BELIEF, {"b": "b" * (ID_MAX + 1)}, Role.READER, None),
    "a NUL in a variable": (NOTE, {"t": "a\x00b"}, Role.WRITER, None),
    "a write by a reader": (NOTE, {"t": "fine"}, Role.READER, None),
    "no role at all": (NOTE, {"t": "fine"}, None, None),
    "two NULs in literals": (
        'mutation { a: note(text: "a\\u0000") { seq } b: note(text: "\\u0000b") { seq } }', None, Role.ADMIN, None),
    "a literal nested too deep": ('mutation { createBelief(proposition: "p", evidence: ' + DEEP + ') { seq } }',
                                  None, Role.ADMIN, None),
    "a long text in an input object": (
        'mutation($w: Float!) { createBelief(proposition: "p", evidence: [{weight: $w, family: "' + "f" * 300
        + '"}]) { seq } }', {"w": 0.5}, Role.ADMIN, None),
    "a variable's default": ('mutation($t: String = "x\\u0000") { note(text: $t) { seq } }', {}, Role.ADMIN, None),
    "two operations, none named": (f"{BELIEF.replace('query', 'query One', 1)} "
                                   f"{NOTE.replace('mutation', 'mutation Two', 1)}", {"b": "b1", "t": "t"},
                                   Role.READER, None),
    "two operations, the write named by a reader": (
        f"{BELIEF.replace('query', 'query One', 1)} {NOTE.replace('mutation', 'mutation Two', 1)}",
        {"b": "b1", "t": "a\x00"}, Role.READER, "Two"),
    "arguments in fragments": ('fragment F on Query { belief(id: "' + "x" * (ID_MAX + 5) + '") { id } } '
                               'query { ...F ... on Query { beliefs(first: 3, after: "' + "y" * (ID_MAX + 1)
                               + '") { totalCount } } }', None, Role.READER, None),
    "more errors than the cap": ("mutation { " + " ".join(f'n{i}: note(text: "\\u0000") {{ seq }}'
                                                          for i in range(MAX_ERRORS + 20)) + " }",
                                 None, Role.ADMIN, None),
}


def errors_of(found: list[Any]) -> list[tuple[str, Any, Any]]:
    return [(e.message, e.locations, e.extensions) for e in found]


@pytest.mark.parametrize("order", [RULES, RULES[::-1]], ids=["as the schema orders them", "reversed"])
@pytest.mark.parametrize("case", CASES)
def test_a_replay_reports_what_validate_reports(case: str, order: tuple[type, ...]) -> None:
    assert set(RULES) <= REQUEST_RULES
    query, variables, role, name = CASES[case]
    document = parse(query)
    context = ExecutionContext(query=query, schema=SCHEMA, allowed_operations=set(OperationType),
                               context={"role": role}, variables=variables, provided_operation_name=name)
    context.graphql_document = document
    validating(context)
    schema = SCHEMA._schema
    walked = validate(schema, document, list(order))
    assert errors_of(replay(schema, document, record(schema, document, order), order)) == errors_of(walked)
    if case != "the bar's belief read":
        assert walked  # each case but the first is refused: the comparison is of errors, not of two empty lists


def test_a_document_is_recorded_once_for_few_events() -> None:
    # The bar's belief read: its operation, its variable definition and its argument (entered and left).
    document = parse(BELIEF)
    events = record(SCHEMA._schema, document, RULES)
    assert [(e.entering, e.node.kind) for e in events] == [
        (True, "operation_definition"), (True, "variable_definition"), (False, "variable_definition"),
        (True, "argument"), (False, "argument"), (False, "operation_definition")]


def test_a_rule_reaching_the_error_cap_as_it_is_built_aborts_as_validate_does() -> None:
    """NulRule reports a NUL-holding variable as it is built: past graphql-core's cap of 100 errors,
    validate raises rather than returning them, and strawberry answers the abort alone (found in review:
    the replay used to build the rules inside its try and return 101 errors)."""
    variables = {f"v{i}": "a\x00" for i in range(MAX_ERRORS + 5)}
    context = ExecutionContext(query="{ __typename }", schema=SCHEMA, allowed_operations=set(OperationType),
                               context={"role": Role.ADMIN}, variables=variables, provided_operation_name=None)
    context.graphql_document = parse("{ __typename }")
    validating(context)
    schema, document = SCHEMA._schema, context.graphql_document
    with pytest.raises(ValidationAbortedError):
        validate(schema, document, list(RULES))
    with pytest.raises(ValidationAbortedError):
        replay(schema, document, record(schema, document, RULES), RULES)
    answered = SCHEMA.execute_sync("{ __typename }", variable_values=variables, context_value={"role": Role.ADMIN})
    assert [e.message for e in answered.errors or []] == [
        "Too many validation errors, error limit reached. Validation aborted."]


class SkipsArguments(ValidationRule):
    """Reports each argument it enters and leaves, and each string literal, except inside arguments named
    `skipped`, which it skips (SKIP: neither their strings nor their own leave are visited)."""

    def enter_argument(self, node: ArgumentNode, *_: Any) -> object:
        if node.name.value == "skipped":
            return SKIP
        self.report_error(GraphQLError(f"entered {node.name.value}", node))
        return None

    def leave_argument(self, node: ArgumentNode, *_: Any) -> None:
        self.report_error(GraphQLError(f"left {node.name.value}", node))

    def enter_string_value(self, node: StringValueNode, *_: Any) -> None:
        self.report_error(GraphQLError(f"string {node.value}", node))


class BreaksAtSecondString(ValidationRule):
    """Reports each field and string literal until the second string, then stops visiting (BREAK)."""

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.seen = 0

    def enter_string_value(self, node: StringValueNode, *_: Any) -> object:
        self.seen += 1
        self.report_error(GraphQLError(f"string {node.value}, seen by the breaking rule", node))
        return BREAK if self.seen == 2 else None

    def enter(self, node: Any, *_: Any) -> None:  # every other kind: nothing is called after BREAK
        if node.kind == "field":
            self.report_error(GraphQLError(f"field {node.name.value}", node))


@pytest.mark.parametrize("order", [(SkipsArguments, BreaksAtSecondString), (BreaksAtSecondString, SkipsArguments)],
                         ids=["skipping first", "breaking first"])
def test_skipping_and_breaking_rules_are_replayed_as_validate_visits_them(order: tuple[type, ...]) -> None:
    """graphql-core's parallel visit skips a node for the rule that returned SKIP entering it (the nodes inside
    and its own leave) and stops a rule that returned BREAK; the replay does both, each for its own rule."""
    # Arguments the schema does not define are no matter here: only these two rules run.
    document = parse('{ a: belief(id: "one", skipped: "hidden") { id } b: beliefs(first: 2, after: "two") '
                     '{ totalCount } c: belief(skipped: "also hidden", id: "three") { id } }')
    schema = SCHEMA._schema
    walked = validate(schema, document, list(order))
    messages = [e.message for e in walked]
    assert "string hidden" not in messages and "left skipped" not in messages  # skipped, inside and out
    assert "string three, seen by the breaking rule" not in messages and "field c" not in messages  # broken off
    assert "string three" in messages  # the other rule goes on
    assert errors_of(replay(schema, document, record(schema, document, order), order)) == errors_of(walked)


def test_one_parsed_document_answers_each_request_for_its_own_role_and_operation() -> None:
    """The parser cache gives every request of a text the same document object, and what the access rule
    works out of a document is kept per document and operation name: each request still gets its own answer."""
    query = f"{BELIEF.replace('query', 'query One', 1)} {NOTE.replace('mutation', 'mutation Two', 1)}"
    document = parse(query)
    schema = SCHEMA._schema
    refused = []
    for name in ("Two", "One", None, "Two"):
        for role in (Role.READER, Role.WRITER, None):
            context = ExecutionContext(query=query, schema=SCHEMA, allowed_operations=set(OperationType),
                                       context={"role": role}, variables={"b": "b1", "t": "t"},
                                       provided_operation_name=name)
            context.graphql_document = document
            validating(context)
            walked = validate(schema, document, list(RULES))
            assert errors_of(replay(schema, document, record(schema, document, RULES), RULES)) == errors_of(walked)
            refused.append(sorted(e.extensions["field"] for e in walked if e.extensions.get("code") == "FORBIDDEN"))
    # A reader may not write a note; a writer may; no role may do nothing. With no name, strawberry names the
    # first operation (OperationNameRule refuses that request, for having two operations and no name).
    assert refused[:3] == [["note"], [], ["note"]]
    assert refused[3:6] == [[], [], ["belief"]]
    assert refused[6:9] == refused[3:6]
    assert refused[9:] == refused[:3]
