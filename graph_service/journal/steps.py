"""A write's round trips as a generator's steps, run in line or awaited one by one from an event loop
(Journal.write_steps yields them; api/context.journal_write drives them through a worker thread)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

# One round trip of a write to the graph (see Journal.write_steps).
Step = Callable[[], Any]


def run_steps(steps: Generator[Step, Any, Any]) -> Any:
    """Run a write's round trips in line, each one's value sent back (or its exception thrown back, so the
    write cleans up where it waited), and return the generator's value."""
    try:
        step = next(steps)
        while True:
            try:
                value = step()
            except Exception as failed:
                step = steps.throw(failed)
            else:
                step = steps.send(value)
    except StopIteration as done:
        return done.value


async def run_steps_waiting(steps: Generator[Step, Any, Any], run: Callable[[Step], Awaitable[Any]]) -> Any:
    """`run_steps` for an event loop: each round trip is awaited through `run` (a worker thread, say:
    api/context.journal_write), and what lies between them runs here, on the loop."""
    try:
        step = next(steps)
        while True:
            try:
                value = await run(step)
            except Exception as failed:
                step = steps.throw(failed)
            else:
                step = steps.send(value)
    except StopIteration as done:
        return done.value
