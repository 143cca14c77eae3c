"""The service-shape benchmark, tiny: it runs end to end on a real served store and prints its bars.
The full run is `python -m benchmarks.service_shape` (10^4 entries and up); this keeps it from rotting."""

from __future__ import annotations

import pytest

from benchmarks import service_shape
from tests.backends import Backend


@pytest.mark.parametrize("state", ["memory", "graph"])
def test_the_benchmark_runs_and_reports_every_bar(state: str, capsys: pytest.CaptureFixture[str]) -> None:
    # graph: the served service holds no state at all (its start, kill -9 and workers included)
    assert service_shape.main(["--sizes", "300", "--requests", "40", "--clients", "4", "--writes", "40",
                               "--reads", "40", "--kill-rounds", "1", "--state", state]) == 0
    out = capsys.readouterr().out
    assert f"every domain's state held in: {state}" in out
    for bar in ("bulk load", "/healthz within 1 s", "own share", "journaled write over GraphQL",
                "belief read over GraphQL", "writes/s with 4 clients", "/healthz p99", "verify peak RSS",
                "kill -9", "never restarted", "reads/s with 2 workers"):
        assert bar in out, bar
    assert "bars met:" in out and "verify over GraphQL: ok" in out
    assert "embedded server restarts while serving: 0" in out


@pytest.mark.neo4j
def test_the_benchmark_runs_on_neo4j_too(neo4j_server: object, capsys: pytest.CaptureFixture[str]) -> None:
    # The ratio bars on Neo4j: the same run on a Neo4j 5 server of its own (the session's server
    # fixture is asked for only to be skipped as the other Neo4j tests are, where Neo4j cannot run).
    assert service_shape.main(["--backend", "neo4j", "--sizes", "200", "--requests", "20", "--clients", "2",
                               "--writes", "20", "--reads", "20", "--kill-rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "Neo4j 5 backend" in out and "ms in the Neo4j server" in out
    for bar in ("bulk load", "own share", "journaled write over GraphQL", "belief read over GraphQL",
                "writes/s with 2 clients", "/healthz p99", "verify peak RSS", "kill -9", "reads/s with 2 workers"):
        assert bar in out, bar
    assert "verify over GraphQL: ok" in out and "restarts while serving" not in out


def test_the_raw_write_baseline_runs_on_every_backend(graph: object, backend: Backend) -> None:
    rows = graph.run("bench_raw_write", {"id": "probe", "at": 1})  # type: ignore[attr-defined]
    assert rows == [{"id": "probe"}]
