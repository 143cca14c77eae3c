"""The per-request context: the service the resolvers work on."""

from __future__ import annotations

from typing import Any

import strawberry

from graph_service.service import Service


def service_of(info: strawberry.Info[Any, Any]) -> Service:
    """The service this request runs against."""
    return info.context["service"]


def caught_up(info: strawberry.Info[Any, Any]) -> Service:
    """The service with every journal entry applied, other writers' included: what a read must see."""
    service = service_of(info)
    service.journal.catch_up()
    return service
