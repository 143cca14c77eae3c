"""The service-shape benchmark, tiny: it runs end to end on a real served store and prints its bars.
The full run is `python -m benchmarks.service_shape` (10^4 entries and up); this keeps it from rotting."""

from __future__ import annotations

import pytest

from benchmarks import service_shape
from tests.backends import Backend


def test_the_benchmark_runs_and_reports_every_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert service_shape.main(["--sizes", "300", "--requests", "40", "--clients", "4", "--writes", "40",
                               "--reads", "40"]) == 0
    out = capsys.readouterr().out
    for bar in ("bulk load", "/healthz within 1 s", "own share", "journaled write over GraphQL",
                "belief read over GraphQL", "writes/s with 4 clients", "/healthz p99", "verify peak RSS",
                "kill -9", "never restarted", "reads/s with 2 workers"):
        assert bar in out, bar
    assert "bars met:" in out and "verify over GraphQL: ok" in out
    assert "embedded server restarts while serving: 0" in out


def test_the_raw_write_baseline_runs_on_every_backend(graph: object, backend: Backend) -> None:
    rows = graph.run("bench_raw_write", {"id": "probe", "at": 1})  # type: ignore[attr-defined]
    assert rows == [{"id": "probe"}]
