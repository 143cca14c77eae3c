"""The benchmark of a service holding no knowledge state (and no belief layer), tiny: it loads a store, opens a
copy in each mode in a process of its own, loads its export in each mode, and prints each figure with its ratio.
The full run is `python -m benchmarks.knowledge_in_graph` (10^4 entries and up); this keeps it from rotting. Its
figures on a tiny store on a shared machine say nothing: not asserted beyond their being printed."""

from __future__ import annotations

import pytest

from benchmarks import knowledge_in_graph


def test_the_benchmark_runs_and_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert knowledge_in_graph.main(["--sizes", "300", "--rounds", "1", "--writes", "2"]) == 0
    out = capsys.readouterr().out
    for figure in ("start_s", "rss_mb", "add_ms", "retract_ms", "retract_p90_ms", "evidence_ms", "load_per_s",
                   "load_peak_rss_mb"):
        line = next((x for x in out.splitlines() if x.strip().startswith(figure)), "")
        assert "memory" in line and " graph " in line and "graph+beliefs" in line and line.endswith("x"), (figure, out)
