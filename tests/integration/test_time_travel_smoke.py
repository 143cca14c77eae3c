"""The time-travel benchmark, tiny: it loads a store, reads beliefs now and as of past positions, and
prints its bar. The full run is `python -m benchmarks.time_travel` (10^4 entries); this keeps it from rotting."""

from __future__ import annotations

import pytest

from benchmarks import time_travel


def test_the_benchmark_runs_and_reports_its_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert time_travel.main(["--entries", "300", "--reads", "20"]) == 0
    out = capsys.readouterr().out
    assert "as of a past position" in out and out.count("bar: an asOf read <= 2x the same read at the head") == 2
    assert "belief read over GraphQL" in out and "item read over GraphQL" in out
