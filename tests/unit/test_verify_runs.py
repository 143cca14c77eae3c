"""verify started by one request and read by later ones: one run at a time, its report or why it has none."""

from __future__ import annotations

import threading
import time

from graph_service.jobs.verify_runs import VerifyRun, VerifyRuns
from graph_service.jobs.verifying import FullReport
from graph_service.journal.store import VerifyReport

REPORT = FullReport(VerifyReport(True, 3, 3), True, "f", "f")


def finished(runs: VerifyRuns) -> VerifyRun:
    deadline = time.monotonic() + 10
    while (run := runs.latest()) is not None and run.running:
        assert time.monotonic() < deadline, "the run never ended"
        time.sleep(0.01)
    assert run is not None
    return run


def test_a_run_answers_at_once_and_a_second_start_while_it_runs_gives_the_same_run() -> None:
    release = threading.Event()
    calls = []

    def verify() -> FullReport:
        calls.append(1)
        assert release.wait(10)
        return REPORT

    runs = VerifyRuns(verify)
    assert runs.latest() is None
    first = runs.start()
    assert first.running and first.report is None and runs.start() == first
    release.set()
    done = finished(runs)
    assert (done.started_at, done.report, done.error) == (first.started_at, REPORT, None)
    assert done.finished_at is not None and done.finished_at >= done.started_at and calls == [1]
    again = runs.start()  # a new run once the last one ended
    assert again.running and finished(runs).report == REPORT and calls == [1, 1]


def test_a_run_that_cannot_verify_says_why_and_the_next_one_runs() -> None:
    outcomes = iter([RuntimeError("the process doing verify exited 1"), REPORT])

    def verify() -> FullReport:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    runs = VerifyRuns(verify)
    runs.start()
    failed = finished(runs)
    assert failed.report is None and failed.error == "RuntimeError: the process doing verify exited 1"
    runs.start()
    assert finished(runs).report == REPORT
