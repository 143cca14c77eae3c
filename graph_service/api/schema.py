"""The GraphQL schema: the root types composed from each part's types, with the safety extensions."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    MaxTokensLimiter,
    ParserCache,
    max_aliases,
    query_depth_limiter,
)
from strawberry.extensions.disable_introspection import DisableIntrospection
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.utils.logging import StrawberryLogger

from graph_service.api.access import FieldAccessRule
from graph_service.api.belief_mutations import BeliefMutation
from graph_service.api.belief_query import BeliefQuery
from graph_service.api.errors import MaskUnexpectedErrors
from graph_service.api.history_types import HistoryQuery
from graph_service.api.impact_types import ImpactQuery
from graph_service.api.input_limits import InputLimitsRule
from graph_service.api.journal_types import JournalMutation, JournalQuery
from graph_service.api.knowledge_mutations import KnowledgeMutation
from graph_service.api.knowledge_query import KnowledgeQuery
from graph_service.api.log_types import LogQuery
from graph_service.api.no_nul import NulRule
from graph_service.api.node_query import NodeQuery
from graph_service.api.operation_name import OperationNameRule
from graph_service.api.prov_types import ProvQuery
from graph_service.api.question_types import QuestionMutation, QuestionQuery
from graph_service.api.scalars import SCALARS
from graph_service.api.statement_types import StatementMutation, StatementQuery
from graph_service.api.stream_types import StreamMutation, StreamQuery
from graph_service.api.subscription import JournalSubscription
from graph_service.api.validating import Validation
from graph_service.api.vocabularies import name_allowed_values
from graph_service.errors import UserError

MAX_DEPTH = 12
MAX_ALIASES = 30
MAX_TOKENS = 2_000
# Parsed documents kept, least recently used out: clients send the same few documents again and again,
# and parsing one was about a tenth of a belief read. A document of MAX_TOKENS tokens holds about
# 0.75 MB, so a client sending many distinct ones can make the cache hold at most some 50 MB.
PARSED_DOCUMENTS = 64
# graphql-core's "Did you mean 'head'?" names schema members: with introspection off it must not leak them.
SUGGESTION = re.compile(r"\s*Did you mean [^?]*\?")


@strawberry.type(description="Reads: the journal and its proofs, knowledge items, beliefs, statements, "
                              "stream rows and questions, what would change if something went, and any node by "
                              "id with its history.")
class Query(NodeQuery, HistoryQuery, JournalQuery, LogQuery, ProvQuery, KnowledgeQuery, ImpactQuery, BeliefQuery,
            StatementQuery, StreamQuery, QuestionQuery):
    pass


@strawberry.type(description="Writes: each one journal entry, authored by the authenticated principal.")
class Mutation(
    JournalMutation, KnowledgeMutation, BeliefMutation, StatementMutation, StreamMutation, QuestionMutation
):
    pass


@strawberry.type(description="Streams over graphql-transport-ws.")
class Subscription(JournalSubscription):
    pass


class ServiceSchema(strawberry.Schema):
    """Logs only unexpected errors: a client's bad input is answered, not a server fault to log; with
    introspection off, no error suggests a name; and a subscription is refused where it cannot stream."""

    def __init__(self, *args: Any, hide_suggestions: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hide_suggestions = hide_suggestions

    async def execute(self, query: str | None, variable_values: dict[str, Any] | None = None,
                      context_value: Any | None = None, root_value: Any | None = None,
                      operation_name: str | None = None,
                      allowed_operation_types: Iterable[OperationType] | None = None,
                      operation_extensions: dict[str, Any] | None = None) -> ExecutionResult:
        # A subscription streams over graphql-transport-ws (schema.subscribe); executed once, as over
        # POST, it has no stream to return and failed as an internal error.
        allowed = set(allowed_operation_types or (OperationType.QUERY, OperationType.MUTATION))
        return await super().execute(query, variable_values, context_value, root_value, operation_name,
                                     allowed - {OperationType.SUBSCRIPTION}, operation_extensions)

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        for error in errors:
            if self.hide_suggestions:
                error.message = SUGGESTION.sub("", error.message)
            # The allowed values are schema members too: listed only where suggestions may name them.
            name_allowed_values(error, self._schema, list_values=not self.hide_suggestions)
            if error.original_error is None or isinstance(error.original_error, (UserError, GraphQLError)):
                continue
            StrawberryLogger.error(error, execution_context)


# The rules of strawberry's QueryDepthLimiter and MaxAliasesLimiter, made once: those extensions make
# their rule class anew in each instance, an instance is made per request, and every class made costs
# graphql-core's inspection of every AST kind (see api/validating.py).
DEPTH_RULE = query_depth_limiter.create_validator(MAX_DEPTH, None)
ALIASES_RULE = max_aliases.create_validator(MAX_ALIASES)
# The rules that read the request, in the order their errors are reported.
REQUEST_RULES_IN_ORDER = (
    FieldAccessRule,  # the request's role may use each root field
    NulRule,  # FalkorDB cannot hold U+0000: refused before anything is written
    InputLimitsRule,  # depth and length caps on every argument
    OperationNameRule,  # a document of several operations runs the one the request names
)


def build_schema(*, introspection: bool = True) -> strawberry.Schema:
    """The schema; extensions are passed as classes or factories so no state is shared between requests."""
    extensions: list = [
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
        lambda: ParserCache(maxsize=PARSED_DOCUMENTS),  # keyed by the parse options the token limit sets too
        MaskUnexpectedErrors,
        # every validation rule, cached per document and replayed per request (after every on_operation)
        lambda: Validation((DEPTH_RULE, ALIASES_RULE, *REQUEST_RULES_IN_ORDER)),
    ]
    if not introspection:
        extensions.append(DisableIntrospection)
    return ServiceSchema(query=Query, mutation=Mutation, subscription=Subscription, extensions=extensions,
                         config=StrawberryConfig(scalar_map=SCALARS), hide_suggestions=not introspection)


schema = build_schema()
