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
from dataclasses import dataclass, replace
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
    """A node entered or left, with the visitor's arguments there and TypeInfo's answers; `hooks`: the rules
    (by index) that have a hook for it, each with that hook's name; `leave_at`: for a node entered, the index
    of the event that leaves it (a rule that skips the node skips every event up to that one)."""

    entering: bool
    node: Node
    key: Any
    parent: Any
    path: tuple[Any, ...]
    ancestors: tuple[Any, ...]
    answers: dict[str, Any]
    hooks: tuple[tuple[int, str], ...]
    leave_at: int = -1


def hook_name(rule: type[ASTValidationRule], kind: str, entering: bool) -> str | None:
    """The method graphql-core's Visitor.get_enter_leave_for_kind would find on this rule for this kind and
    direction: `enter_<kind>` (or `leave_<kind>`), else `enter` (or `leave`), else none."""
    way = "enter" if entering else "leave"
    for name in (f"{way}_{kind}", way):
        if getattr(rule, name, None):
            return name
    return None


def handled_kinds(rules: Sequence[type[ASTValidationRule]], kind: str) -> bool:
    """Does any of these rules have a hook for nodes of this kind?"""
    return any(hook_name(rule, kind, entering) for rule in rules for entering in (True, False))


class Recorder(Visitor):
    """Keeps the events of the kinds `rules` handle (a module-level class: graphql-core inspects every
    AST kind when a Visitor subclass is made)."""

    def __init__(self, type_info: TypeInfo, rules: Sequence[type[ASTValidationRule]]) -> None:
        super().__init__()
        self.type_info = type_info
        self.rules = rules
        self.events: list[Event] = []
        self.entered: list[int] = []  # the events of the nodes entered and not yet left
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
        if not self.wanted[kind]:
            return
        hooks = tuple((i, name) for i, rule in enumerate(self.rules)
                      if (name := hook_name(rule, kind, entering)) is not None)
        if entering:
            self.entered.append(len(self.events))
        else:
            opened = self.entered.pop()
            self.events[opened] = replace(self.events[opened], leave_at=len(self.events))
        self.events.append(Event(entering, node, key, parent, tuple(path), tuple(ancestors),
                                 {name: getattr(self.type_info, name)() for name in TYPE_INFO_ANSWERS}, hooks))


def record(schema: GraphQLSchema, document: DocumentNode,
           rules: Sequence[type[ASTValidationRule]]) -> tuple[Event, ...]:
    """The events of the kinds these rules handle, in the order `validate` visits them (the same keys,
    with a TypeInfo), each naming the hooks of `rules` it calls: replay them with the same rules, in the
    same order. RecursionError for a document too deep to walk (the caller validates as before)."""
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
    """The errors these rules report over the events `record` made for them (the same rules, in the same
    order), as `validate(schema, document, rules)` would report them."""
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
        # Each rule's position past which it visits again after a SKIP (graphql-core calls neither the hooks
        # inside a skipped node nor its leave), and whether it has broken off (BREAK: no more hooks at all).
        skip_until = [-1] * len(visitors)
        broken = [False] * len(visitors)
        for position, event in enumerate(events):
            if not event.hooks:
                continue
            type_info.answers = event.answers
            for i, name in event.hooks:
                if broken[i] or position <= skip_until[i]:
                    continue
                result = getattr(visitors[i], name)(event.node, event.key, event.parent, list(event.path),
                                                    list(event.ancestors))
                if result is BREAK or result is True:
                    broken[i] = True
                elif result is SKIP or result is False:
                    if event.entering:
                        skip_until[i] = event.leave_at
                elif result is not None:
                    raise TypeError(f"{type(visitors[i]).__name__} edits the document: a validation rule must not")
    except ValidationAbortedError as error:
        error.__context__ = None
        errors.append(error.with_traceback(None))
    return errors
