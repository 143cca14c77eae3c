"""Whole-journal work (verify, rebuild, redecide) runs in a worker thread, one at a time, so the event
loop keeps answering every other request (/healthz included) while it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from graph_service.api.errors import as_graphql_error
from graph_service.errors import UserError

T = TypeVar("T")
_limiter: anyio.CapacityLimiter | None = None


def _one_at_a_time() -> anyio.CapacityLimiter:
    global _limiter
    if _limiter is None:  # created inside the running loop, on first use
        _limiter = anyio.CapacityLimiter(1)
    return _limiter


async def off_the_loop(work: Callable[[], T]) -> T:
    """`work()` in a worker thread; several requests for long work queue there, never on the loop.
    A UserError becomes the GraphQL error with its code, as for any resolver."""
    try:
        return await anyio.to_thread.run_sync(work, limiter=_one_at_a_time())
    except UserError as exc:
        raise as_graphql_error(exc) from exc
