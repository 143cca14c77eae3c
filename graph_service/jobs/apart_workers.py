"""The processes that do graph_service.jobs.apart's jobs, kept between jobs.

Why: a new Python process spends about half a second importing the service's modules and their drivers before it
reads its job, which was most of the time of an as-of page read (94% of the processor time of the children in the
suite's knowledge as-of test). A worker does jobs one after another, one JSON line each way, and waits on its
stdin between them; the pool keeps up to MAX_IDLE of them. A worker that dies, is interrupted mid-job, or whose
peak memory passed graph_service.jobs.apart's bound after a job is not kept: a whole-journal fold's memory goes back to
the system with its process.
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable

MAX_IDLE = 2  # idle workers kept: the reads a page at a time a front end makes side by side
CLOSE_SECONDS = 5.0  # an idle worker told to go (its stdin closed) is killed if it has not gone by then


class Worker:
    """One `python -m graph_service.jobs.apart` process. Its last words (stderr) go to a file, not a pipe: a pipe
    nobody reads until the end could fill and stall it."""

    def __init__(self) -> None:
        self._said = tempfile.TemporaryFile("w+b")  # noqa: SIM115 (the worker owns it until `close`)
        self.process = subprocess.Popen([sys.executable, "-m", "graph_service.jobs.apart"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self._said, text=True, encoding="utf-8",
                                        errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def do(self, asked: str, progress: Callable[[str], None], is_progress: Callable[[str], bool]) -> str | None:
        """Send one job (a JSON line) and read the worker's lines until its answer: that line, each progress line
        before it given to `progress`; None when the worker ended without answering."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(asked + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:  # it died before it read its job: its exit code and last words say why
            return None
        for line in self.process.stdout:
            if is_progress(line):
                progress(line)
            else:
                return line
        return None

    def said_so_far(self) -> int:
        """Where its last words will start from the next thing it says."""
        return self._said.seek(0, 2)

    def last_words(self, since: int) -> str:
        """What it said on stderr from `since` on."""
        self._said.seek(since)
        return self._said.read().decode("utf-8", errors="replace")

    def close(self) -> None:
        """Let it go (EOF on its stdin ends its loop), and kill it if it does not."""
        with contextlib.suppress(OSError):  # a pipe to a worker already gone
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
        self._release()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self._release()

    def _release(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self._said.close()


class WorkerPool:
    """Workers waiting for a job, up to MAX_IDLE; safe to use from several threads."""

    def __init__(self) -> None:
        self._idle: list[Worker] = []
        self._lock = threading.Lock()

    def take(self) -> Worker:
        """An idle worker that is still alive, or a new one."""
        while True:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                return Worker()
            if worker.alive():
                return worker
            worker.kill()  # reaps it and frees its files

    def give_back(self, worker: Worker) -> None:
        """Keep `worker` for the next job, or let it go when MAX_IDLE already wait."""
        with self._lock:
            if len(self._idle) < MAX_IDLE and worker.alive():
                self._idle.append(worker)
                return
        worker.close()

    def idle(self) -> list[int]:
        """The process ids of the workers waiting for a job."""
        with self._lock:
            return [worker.process.pid for worker in self._idle]

    def close_idle(self) -> None:
        """Let every idle worker go (at exit; a test that needs the next job to start a process)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


POOL = WorkerPool()
atexit.register(POOL.close_idle)
