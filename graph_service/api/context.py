"""The per-request context: the service the resolvers work on, who asks, and the request's Idempotency-Key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import strawberry

from graph_service.api.access import ANONYMOUS, Principal, principal_of_scope
from graph_service.api.idempotency import SCOPE_KEY as ONCE_SCOPE_KEY
from graph_service.domain import Draft
from graph_service.journal.once import WriteOnce
from graph_service.journal.store import WriteResult
from graph_service.service import Service


def service_of(info: strawberry.Info[Any, Any]) -> Service:
    """The service this request runs against."""
    return info.context["service"]


def caught_up(info: strawberry.Info[Any, Any]) -> Service:
    """The service with every journal entry applied, other writers' included: what a read must see."""
    service = service_of(info)
    service.journal.catch_up()
    return service


def once_of(info: strawberry.Info[Any, Any]) -> WriteOnce | None:
    """The Idempotency-Key the request came with, if any (see graph_service.api.idempotency)."""
    request = info.context.get("request")
    return getattr(request, "scope", {}).get(ONCE_SCOPE_KEY)


def principal_of(info: strawberry.Info[Any, Any]) -> Principal:
    """Who the request authenticated as (anonymous when the service runs without tokens)."""
    request = info.context.get("request")
    return principal_of_scope(getattr(request, "scope", {})) or ANONYMOUS


def author_of(info: strawberry.Info[Any, Any]) -> str:
    """The name every entry this request writes is journalled under: its principal's, never the client's say."""
    return principal_of(info).name


def journal_write(info: strawberry.Info[Any, Any], plan: Callable[[], Draft]) -> WriteResult:
    """Journal one write as the request's principal (its role recorded when tokens are configured), under
    the request's Idempotency-Key if it has one."""
    principal = principal_of(info)
    return service_of(info).journal.write(principal.name, plan, once_of(info), role=principal.recorded_role)
