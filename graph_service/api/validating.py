"""Validation: the rules that read the request (its role, variables, operationName), and the cache that
runs the rest once per document.

graphql-core takes validation rules as classes, and a rule needs the request's own data. Defining a rule
class inside each request's hook gave every request four new classes, and graphql-core's Visitor inspects
every AST kind when a subclass is made: measured, validation was 3.8 ms of a 5.2 ms `note` over GraphQL.
So the rules are module-level classes, added to each operation by one extension (`Validation`), and
read the request's execution context from here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from functools import lru_cache

from cachetools import LRUCache
from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema, validate
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document
from strawberry.types.execution import ExecutionContext

from graph_service.api.rule_replay import Event, record, replay

_OPERATION: ContextVar[ExecutionContext] = ContextVar("graph_service_validating")


def validating(execution_context: ExecutionContext) -> None:
    """Name the operation about to be validated (`Validation.on_operation` calls this before it yields).
    Not reset afterwards: every operation sets it before its validation reads it, and a request's task
    (with its copy of the context) ends with the request."""
    _OPERATION.set(execution_context)


def operation_validated() -> ExecutionContext:
    """The execution context of the operation being validated (set by `validating`)."""
    return _OPERATION.get()


class Validation(SchemaExtension):
    """Validates each operation with `rules` as well as the specification's and those other extensions add,
    in two parts: the rules that read only the document (the specification's, depth, aliases,
    introspection) are run once per document text and their answer kept (an LRU of `DOCUMENT_CACHE_SIZE`);
    the rules that read the request itself (`REQUEST_RULES`: its role, its variables, its operationName,
    through `operation_validated`, which this names before validation runs) run on every request, over the
    events of the document recorded once (api/rule_replay.py; an LRU of `RECORDED_CACHE_SIZE`) when it
    passed the others, else by graphql-core's own walk.

    Why: clients send the same few documents again and again, and the specification's rules, some
    forty visitors, were about 1 ms of every request; the walk for the request's rules was ~0.15 ms
    of `{ __typename }` and ~0.3 ms of the issue 10 bar's belief query, in process. One extension for
    all of it: strawberry makes every extension anew for each request and runs each one's hooks, about
    9 us an extension (measured as four that each only added one rule were folded into one)."""

    def __init__(self, rules: Sequence[type[ASTValidationRule]] = ()) -> None:
        self.rules = tuple(rules)

    def on_operation(self) -> Iterator[None]:
        validating(self.execution_context)
        self.execution_context.validation_rules = (*self.execution_context.validation_rules, *self.rules)
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is None or not context.validation_rules:
            yield
            return
        schema = context.schema._schema
        per_request, per_document, request_names, document_names = _split(tuple(context.validation_rules))
        key = (id(schema), context.query or "", document_names)
        errors = _DOCUMENT_ERRORS.get(key)
        if errors is None:
            errors = _DOCUMENT_ERRORS[key] = validate_document(schema, document, per_document)
        # Copies: an error's message and extensions are edited on the way out (suggestions, allowed values).
        found = [GraphQLError(e.message, e.nodes, e.source, e.positions, e.path, e.original_error,
                              dict(e.extensions or {})) for e in errors]
        if per_request:
            recorded = None if errors else _recorded(schema, context.query or "", document, per_request,
                                                     request_names)
            found += validate(schema, document, per_request) if recorded is None \
                else replay(schema, recorded[0], recorded[1], per_request)
        context.pre_execution_errors = found
        yield


RuleSplit = tuple[tuple[type[ASTValidationRule], ...], tuple[type[ASTValidationRule], ...], tuple[str, ...],
                  tuple[str, ...]]


@lru_cache(maxsize=64)
def _split(rules: tuple[type[ASTValidationRule], ...]) -> RuleSplit:
    """The rules that read the request and those that read only the document, in their order, with their
    names (the caches' keys): worked out once per set of rules, which is the same for every request."""
    per_request = tuple(r for r in rules if r in REQUEST_RULES)
    per_document = tuple(r for r in rules if r not in REQUEST_RULES)
    return per_request, per_document, _names(per_request), _names(per_document)


def _names(rules: tuple[type[ASTValidationRule], ...]) -> tuple[str, ...]:
    return tuple(f"{r.__module__}.{r.__qualname__}" for r in rules)


def _recorded(schema: GraphQLSchema, query: str, document: DocumentNode, rules: tuple[type[ASTValidationRule], ...],
              names: tuple[str, ...]) -> tuple[DocumentNode, tuple[Event, ...]] | None:
    # The document (the first parse of this text: the events' nodes are its own) and its events for
    # these rules (`names`: theirs); None for a document too deep to walk, which graphql-core's validate answers.
    key = (id(schema), query, names)
    found = _RECORDED.get(key)
    if found is None:
        try:
            found = _RECORDED[key] = (document, record(schema, document, rules))
        except RecursionError:
            return None
    return found


DOCUMENT_CACHE_SIZE = 512
# A recorded document holds its parse (as much as 0.75 MB at the token limit), not only its errors: fewer
# kept, the same number as parsed documents (api/schema.py PARSED_DOCUMENTS), mostly the same objects.
RECORDED_CACHE_SIZE = 64
# Least recently used first out (cachetools.LRUCache: a read counts as a use).
_RECORDED: LRUCache[tuple[int, str, tuple[str, ...]], tuple[DocumentNode, tuple[Event, ...]]] = \
    LRUCache(maxsize=RECORDED_CACHE_SIZE)
_DOCUMENT_ERRORS: LRUCache[tuple[int, str, tuple[str, ...]], list[GraphQLError]] = LRUCache(maxsize=DOCUMENT_CACHE_SIZE)
REQUEST_RULES: set[type[ASTValidationRule]] = set()
"""Filled by the modules whose rules read the request (access, input limits, NUL, operationName)."""
