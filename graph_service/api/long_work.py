"""Whole-journal work waits in a worker thread (the work itself runs in a process of its own:
graph_service.jobs.apart), so the event loop keeps answering every other request (/healthz included)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from graph_service.api.errors import as_graphql_error
from graph_service.errors import UserError

T = TypeVar("T")
# Admin work (verify, rebuild, redecide, PROV) one at a time; a reader's fold of the past (a fingerprint,
# report, snapshot, open questions or a list's page as of a position) beside it, two at a time, so it
# never queues behind a verify.
_limiters: dict[str, anyio.CapacityLimiter] = {}
_CAPACITY = {"admin": 1, "past": 2}


def _limiter(kind: str) -> anyio.CapacityLimiter:
    if kind not in _limiters:  # created inside the running loop, on first use
        _limiters[kind] = anyio.CapacityLimiter(_CAPACITY[kind])
    return _limiters[kind]


async def off_the_loop(work: Callable[[], T], kind: str = "admin") -> T:
    """`work()` in a worker thread; several requests of one kind queue there, never on the loop (`kind`:
    "admin" work, one at a time, or "past" reads, two at a time). A UserError becomes the GraphQL error
    with its code, as for any resolver."""
    try:
        return await anyio.to_thread.run_sync(work, limiter=_limiter(kind))
    except UserError as exc:
        raise as_graphql_error(exc) from exc
