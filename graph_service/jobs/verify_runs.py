"""verify started by one request and read by later ones, so no request waits on it (issue 10: verify runs off
the request path, and starting one is an admin's act).

The run is `Service.verify_apart` (a process of its own) in a thread of its own; while it runs, the board of
work running shows its progress (graph_service.jobs.work_board). One run at a time per serving process: starting
one while one runs gives the one running. Each serving process keeps its own latest run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from graph_service.jobs.verifying import FullReport


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class VerifyRun:
    """One run: when it began and ended (epoch ms; `finished_at` None while it runs), and its report, or why
    it gave none (`error`: it could not run, for instance the process doing it died)."""

    started_at: int
    finished_at: int | None = None
    report: FullReport | None = None
    error: str | None = None

    @property
    def running(self) -> bool:
        return self.finished_at is None


class VerifyRuns:
    """The latest run of `verify` (a function that checks the whole store and returns its report)."""

    def __init__(self, verify: Callable[[], FullReport]) -> None:
        self._verify = verify
        self._lock = threading.Lock()
        self._latest: VerifyRun | None = None

    def start(self) -> VerifyRun:
        """Begin a run in a thread of its own and return it at once; the run already going, if one is."""
        with self._lock:
            if self._latest is not None and self._latest.running:
                return self._latest
            run = self._latest = VerifyRun(started_at=_now_ms())
        threading.Thread(target=self._run, args=(run,), name="verify-run", daemon=True).start()
        return run

    def latest(self) -> VerifyRun | None:
        """The latest run, running or done; None before the first."""
        with self._lock:
            return self._latest

    def _run(self, run: VerifyRun) -> None:
        try:
            done = replace(run, report=self._verify())
        except Exception as exc:  # reported to whoever reads the run; the service goes on
            done = replace(run, error=f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._latest = replace(done, finished_at=_now_ms())
