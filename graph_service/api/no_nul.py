"""Strings carrying U+0000, or unpaired surrogates (not UTF-8), are refused before any resolver runs.

FalkorDB cannot hold the NUL character: its client sends parameters as Cypher text and the
server stops reading at the NUL, so the query fails after the journal entry is written (the
head moves, the graph lags) or, for some writes, stores a string that no longer equals the
journal's. One rule at the edge keeps every backend and every field the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    ArgumentNode,
    GraphQLError,
    StringValueNode,
    ValidationContext,
    ValidationRule,
    VariableDefinitionNode,
)

from graph_service.api.validating import REQUEST_RULES, operation_validated

NUL = "\x00"


def nul_error(name: str, node: Any = None, *, variable: bool = False) -> GraphQLError:
    """A BAD_USER_INPUT error naming the argument (or variable) whose string holds a NUL."""
    what = f"variable ${name}" if variable else name
    return GraphQLError(f"{what} must not contain the NUL character (U+0000) or unpaired surrogates", node,
                        extensions={"code": "BAD_USER_INPUT", "field": name})


def _unstorable_text(text: str) -> bool:
    if NUL in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _holds_nul(value: object) -> bool:
    # Iterative: it walks variables before any depth limit has refused them (a recursive walk failed
    # with "maximum recursion depth exceeded" on a variable nested a few hundred levels deep).
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if _unstorable_text(current):
                return True
        elif isinstance(current, Mapping):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list | tuple):
            stack.extend(current)
    return False


class NulRule(ValidationRule):
    """Reports each variable and string literal holding a NUL, during validation (a request rule:
    api/validating.Validation)."""

    def __init__(self, validation_context: ValidationContext) -> None:
        super().__init__(validation_context)
        self.names: list[str] = []
        for name, value in (operation_validated().variables or {}).items():
            if _holds_nul(value):
                validation_context.report_error(nul_error(name, variable=True))

    def enter_argument(self, node: ArgumentNode, *_: Any) -> None:
        self.names.append(node.name.value)

    def leave_argument(self, node: ArgumentNode, *_: Any) -> None:
        self.names.pop()

    def enter_variable_definition(self, node: VariableDefinitionNode, *_: Any) -> None:
        self.names.append(node.variable.name.value)

    def leave_variable_definition(self, node: VariableDefinitionNode, *_: Any) -> None:
        self.names.pop()

    def enter_string_value(self, node: StringValueNode, *_: Any) -> None:
        if _unstorable_text(node.value):
            self.report_error(nul_error(self.names[-1] if self.names else "string", node))


REQUEST_RULES.add(NulRule)
