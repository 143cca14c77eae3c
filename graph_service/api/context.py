"""The per-request context: the service the resolvers work on, and the request's Idempotency-Key."""

from __future__ import annotations

from typing import Any

import strawberry

from graph_service.api.idempotency import SCOPE_KEY as ONCE_SCOPE_KEY
from graph_service.journal.once import WriteOnce
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
