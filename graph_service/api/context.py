"""The per-request context: the service the resolvers work on, who asks, and the request's Idempotency-Key."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import strawberry

from graph_service.api.access import ANONYMOUS, Principal, principal_of_scope
from graph_service.api.idempotency import SCOPE_KEY as ONCE_SCOPE_KEY
from graph_service.domain import Draft
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.journal.once import WriteOnce
from graph_service.journal.steps import run_steps_waiting
from graph_service.journal.store import Journal, WriteResult
from graph_service.service import Service

_KNOWLEDGE_READ = "knowledge_read"


def service_of(info: strawberry.Info[Any, Any]) -> Service:
    """The service this request runs against."""
    return info.context["service"]


def caught_up(info: strawberry.Info[Any, Any]) -> Service:
    """The service with every journal entry applied, other writers' included: what a read must see."""
    service = service_of(info)
    service.journal.catch_up()
    return service


def knowledge_read(service: Service) -> KnowledgeRead:
    """The knowledge store at the last position the graph is known to hold, read from the graph as it is
    asked for (graph_service.from_graph.knowledge_region.KnowledgeRead), never from the in-memory state."""
    return KnowledgeRead(service.graph, min(service.journal.seq, service.journal.projected))


def knowledge_now(info: strawberry.Info[Any, Any]) -> KnowledgeRead:
    """`knowledge_read` for this request, one per request and position: what its fields read of the
    knowledge store (an item a flag names and a dispute names too) is read once."""
    service = service_of(info)
    held = info.context.get(_KNOWLEDGE_READ)
    if held is None or held.upto != min(service.journal.seq, service.journal.projected):
        held = info.context[_KNOWLEDGE_READ] = knowledge_read(service)
    return held


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


# One write at a time per journal on the event loop (Journal.write_steps asks its driver for that).
_write_turns: weakref.WeakKeyDictionary[Journal, anyio.Lock] = weakref.WeakKeyDictionary()


async def journal_write(info: strawberry.Info[Any, Any], plan: Callable[[], Draft], *,
                        plan_off_loop: bool = False) -> WriteResult:
    """Journal one write as the request's principal (its role recorded when tokens are configured), under
    the request's Idempotency-Key if it has one.

    Planning and applying run here, on the event loop, under the journal's lock (Journal.write_steps); each
    round trip to the graph runs in a worker thread, so the loop serves other requests while it is on its way.
    Before, a write's round trips ran on the loop and every other request, /healthz included, waited on them.
    `plan_off_loop`: the plan reads only the graph, so it runs in a worker thread too (a knowledge write of a
    service that holds no knowledge state)."""
    principal = principal_of(info)
    journal = service_of(info).journal
    if journal not in _write_turns:
        _write_turns[journal] = anyio.Lock()
    async with _write_turns[journal]:
        steps = journal.write_steps(principal.name, plan, once_of(info), role=principal.recorded_role,
                                    plan_off_loop=plan_off_loop)
        written: WriteResult = await run_steps_waiting(steps, anyio.to_thread.run_sync)
        return written
