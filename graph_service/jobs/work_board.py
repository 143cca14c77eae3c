"""The whole-journal work this process has running apart (graph_service.jobs.apart), and how far each has come.
Each serving process keeps its own (under `serve --workers N`, the work its own requests started).

Pure bookkeeping, thread-safe: the work runs in worker threads that wait on child processes, and an
admin's request reads the board from the event loop. Why: verify, a rebuild or a PROV document reads the
whole journal and, at 10^6 entries, runs for minutes; without it an admin could only wait on the request.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Work:
    """One piece of work running: its job, when it began (epoch ms) and how far it has come (`done` of
    `total`: the journal entries it has read, for a job that says so; `total` None until it does), and what
    it is doing now (`step`: verify compares the graph once it has read the journal)."""

    id: int
    job: str
    started_at: int
    done: int = 0
    total: int | None = None
    step: str | None = None


class WorkBoard:
    """The work running now, each with its progress as last reported."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[int, Work] = {}
        self._ids = itertools.count(1)

    @contextmanager
    def doing(self, job: str) -> Iterator[Callable[[int, int | None, str | None], None]]:
        """Put `job` on the board for the length of the block, which is given the function that reports its
        progress (done, total, step); off the board when the block ends, however it ends."""
        with self._lock:
            work = Work(id=next(self._ids), job=job, started_at=time.time_ns() // 1_000_000)
            self._running[work.id] = work

        def progress(done: int, total: int | None, step: str | None = None) -> None:
            with self._lock:
                if work.id in self._running:
                    self._running[work.id] = replace(self._running[work.id], done=done, total=total, step=step)

        try:
            yield progress
        finally:
            with self._lock:
                del self._running[work.id]

    def running(self) -> list[Work]:
        """The work running now, oldest first."""
        with self._lock:
            return sorted(self._running.values(), key=lambda w: w.id)
