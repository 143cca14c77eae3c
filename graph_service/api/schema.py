"""The GraphQL schema: the root types composed from each part's types, with the safety extensions."""

from __future__ import annotations

import strawberry
from strawberry.extensions import MaskErrors, MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.extensions.disable_introspection import DisableIntrospection

from graph_service.api.access import AccessControl
from graph_service.api.errors import should_mask_error
from graph_service.api.journal_types import JournalMutation, JournalQuery
from graph_service.api.subscription import JournalSubscription

MAX_DEPTH = 12
MAX_ALIASES = 30
MAX_TOKENS = 2_000


@strawberry.type
class Query(JournalQuery):
    pass


@strawberry.type
class Mutation(JournalMutation):
    pass


@strawberry.type
class Subscription(JournalSubscription):
    pass


def build_schema(*, introspection: bool = True) -> strawberry.Schema:
    """The schema; extensions are passed as classes or factories so no state is shared between requests."""
    extensions: list = [
        lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
        lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES),
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
        lambda: MaskErrors(should_mask_error=should_mask_error),
        AccessControl,
    ]
    if not introspection:
        extensions.append(DisableIntrospection)
    return strawberry.Schema(query=Query, mutation=Mutation, subscription=Subscription, extensions=extensions)


schema = build_schema()
