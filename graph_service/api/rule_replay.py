"""The rules that read the request (api/validating.REQUEST_RULES) without a visit of the document per request.

graphql-core's `validate` walks every node of the document with a TypeInfo for each request; the
rules that read the request (its role, variables, operationName) look at a few kinds of node only
(arguments, variable definitions, string values, operations). So the walk is made once per document
(`record`): the enter and leave events of the kinds those rules handle, each with what TypeInfo said
there; and each request runs the rules over those events (`replay`), with what `validate` gives
them: the same hooks, in the same order, the same answers from the validation context, skipping and
breaking as graphql-core's visitors do, and its cap on errors. For the issue 10 bar's belief query,
3 events instead of 34 nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import (
    BREAK,
    SKIP,
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    Node,
    TypeInfo,
    TypeInfoVisitor,
    ValidationContext,
    Visitor,
    visit,
)
from graphql.validation.validate import ValidationAbortedError, query_document_keys_to_validate

# TypeInfo's answers a rule can ask its validation context for, as they were at an event.
TYPE_INFO_ANSWERS = ("get_argument", "get_default_value", "get_directive", "get_enum_value", "get_field_def",
                     "get_fragment_argument", "get_fragment_signature", "get_input_type",
                     "get_parent_input_type", "get_parent_type", "get_type")
MAX_ERRORS = 100  # graphql-core validate's own cap


@dataclass(frozen=True)
class Event:
    """A node entered or left, with the visitor's arguments there and TypeInfo's answers."""

    entering: bool
    node: Node
    key: Any
    parent: Any
    path: tuple[Any, ...]
    ancestors: tuple[Any, ...]
    answers: dict[str, Any]


def handled_kinds(rules: Sequence[type[ASTValidationRule]], kind: str) -> bool:
    """Does any of these rules have a hook for nodes of this kind?"""
    return any(getattr(rule, f"{way}_{kind}", None) or getattr(rule, way, None)
               for rule in rules for way in ("enter", "leave"))


class Recorder(Visitor):
    """Keeps the events of the kinds `rules` handle (a module-level class: graphql-core inspects every
    AST kind when a Visitor subclass is made)."""

    def __init__(self, type_info: TypeInfo, rules: Sequence[type[ASTValidationRule]]) -> None:
        super().__init__()
        self.type_info = type_info
        self.rules = rules
        self.events: list[Event] = []
        self.wanted: dict[str, bool] = {}

    def enter(self, node: Node, key: Any, parent: Any, path: list[Any], ancestors: list[Any]) -> None:
        self._keep(True, node, key, parent, path, ancestors)

    def leave(self, node: Node, key: Any, parent: Any, path: list[Any], ancestors: list[Any]) -> None:
        self._keep(False, node, key, parent, path, ancestors)

    def _keep(self, entering: bool, node: Node, key: Any, parent: Any, path: list[Any],
              ancestors: list[Any]) -> None:
        kind = node.kind
        if kind not in self.wanted:
            self.wanted[kind] = handled_kinds(self.rules, kind)
        if self.wanted[kind]:
            self.events.append(Event(entering, node, key, parent, tuple(path), tuple(ancestors),
                                     {name: getattr(self.type_info, name)() for name in TYPE_INFO_ANSWERS}))


def record(schema: GraphQLSchema, document: DocumentNode,
           rules: Sequence[type[ASTValidationRule]]) -> tuple[Event, ...]:
    """The events of the kinds these rules handle, in the order `validate` visits them (the same keys,
    with a TypeInfo). RecursionError for a document too deep to walk (the caller validates as before)."""
    type_info = TypeInfo(schema)
    recorder = Recorder(type_info, rules)
    visit(document, TypeInfoVisitor(type_info, recorder), query_document_keys_to_validate)
    return tuple(recorder.events)


class ReplayedTypeInfo:
    """Answers as TypeInfo did at the event being replayed."""

    def __init__(self) -> None:
        self.answers: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Callable[[], Any]:
        if name not in TYPE_INFO_ANSWERS:
            raise AttributeError(f"a replayed rule asked TypeInfo for {name}, which is not recorded")
        return lambda: self.answers[name]


def replay(schema: GraphQLSchema, document: DocumentNode, events: Sequence[Event],
           rules: Sequence[type[ASTValidationRule]]) -> list[GraphQLError]:
    """The errors these rules report over the recorded events, as `validate(schema, document, rules)`
    would report them."""
    errors: list[GraphQLError] = []

    def on_error(error: GraphQLError) -> None:
        if len(errors) >= MAX_ERRORS:
            raise ValidationAbortedError("Too many validation errors, error limit reached. Validation aborted.")
        errors.append(error)

    type_info = ReplayedTypeInfo()
    context = ValidationContext(schema, document, type_info, on_error)  # type: ignore[arg-type]
    # Built before the try, as graphql-core's validate builds them: a rule that reaches the error cap
    # in its constructor aborts the whole validation (strawberry answers with the abort alone).
    visitors = [rule(context) for rule in rules]
    try:
        skipping: list[Node | None] = [None] * len(visitors)
        broken = [False] * len(visitors)
        for event in events:
            type_info.answers = event.answers
            for i, visitor in enumerate(visitors):
                if broken[i]:
                    continue
                if skipping[i] is not None:
                    if not event.entering and event.node is skipping[i]:
                        skipping[i] = None  # a skipped node's own leave is not called either
                    continue
                enter, leave = visitor.get_enter_leave_for_kind(event.node.kind)
                hook = enter if event.entering else leave
                if hook is None:
                    continue
                result = hook(event.node, event.key, event.parent, list(event.path), list(event.ancestors))
                if result is BREAK or result is True:
                    broken[i] = True
                elif result is SKIP or result is False:
                    if event.entering:
                        skipping[i] = event.node
                elif result is not None:
                    raise TypeError(f"{type(visitor).__name__} edits the document: a validation rule must not")
    except ValidationAbortedError as error:
        error.__context__ = None
        errors.append(error.with_traceback(None))
    return errors
