"""The board of whole-journal work running apart: on it for the length of the work, with its progress."""

from __future__ import annotations

import pytest

from graph_service.jobs.work_board import WorkBoard


def test_work_is_on_the_board_while_it_runs_with_the_progress_it_reported() -> None:
    board = WorkBoard()
    with board.doing("verify") as report:
        (verify,) = board.running()
        assert (verify.job, verify.done, verify.total) == ("verify", 0, None)
        report(40, 100)
        with board.doing("rebuild"):
            assert [(w.job, w.done, w.total) for w in board.running()] == [("verify", 40, 100), ("rebuild", 0, None)]
        report(100, 100)
        assert [(w.job, w.done, w.total) for w in board.running()] == [("verify", 100, 100)]
        assert board.running()[0].started_at == verify.started_at > 0
    assert board.running() == []


def test_work_that_fails_leaves_the_board_and_a_late_report_changes_nothing() -> None:
    board = WorkBoard()
    reported = []
    with pytest.raises(RuntimeError, match="the child died"), board.doing("prov") as report:
        reported.append(report)
        raise RuntimeError("the child died")
    reported[0](5, 10)  # from a thread still reading the child's last lines
    assert board.running() == []
