"""The round-trip benchmark, tiny, on each backend (the session's Neo4j): it keeps `python -m benchmarks.round_trips`
(a store of its own, hundreds of each round trip, one tree against another) from rotting."""

from __future__ import annotations

import re

import pytest

from benchmarks import round_trips
from tests.backends import Backend


@pytest.mark.neo4j
def test_the_benchmark_reports_each_round_trip_against_the_first_tree(neo4j_backend: Backend,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = neo4j_backend.neo4j
    assert endpoint is not None
    assert round_trips.main(["--uri", endpoint.uri, "--user", endpoint.user, "--password", endpoint.password,
                                   "--tree", "here=.", "--rounds", "1", "--count", "3"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    figures = re.findall(r"(read|write|note|fact|retraction) (\d+\.\d+) \(1\.00x\)", line)
    assert line.strip().startswith("here:") and [kind for kind, _ in figures] == list(round_trips.KINDS)
    assert all(float(ms) > 0 for _, ms in figures)


def test_the_benchmark_runs_on_the_embedded_backend_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert round_trips.main(["--backend", "falkordb", "--tree", "here=.", "--rounds", "1", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert "falkordb round trips" in out and out.splitlines()[-1].strip().startswith("here: read ")
