"""The read-pages benchmark, tiny: it loads two stores, checks the reads it times agree with the service's
(the windows with the every-belief page, the kept fingerprint with the state's) and prints a figure for each
read. The full run is `python -m benchmarks.read_pages` (10^4 entries and up); this keeps it from rotting.
Its exit code is the growth bar, which two tiny stores on a shared machine cannot judge: not asserted."""

from __future__ import annotations

import pytest

from benchmarks import read_pages


def test_the_benchmark_runs_and_prints_every_read(capsys: pytest.CaptureFixture[str]) -> None:
    read_pages.main(["--sizes", "150", "300", "--rounds", "2"])
    out = capsys.readouterr().out
    for name in ("beliefs page (windows)", "items page (windows)", "items page (id index)", "fingerprint now",
                 "fingerprint (every belief)",
                 "open questions (graph)", "open questions (in memory)", "impact (graph)", "impact (in memory)",
                 "recall (graph)", "recall (in memory)",
                 "raw read"):
        assert f"{name}: " in out, (name, out)
    assert out.count(" ms at 300") == out.count("\n"), out
