"""The Neo4j round-trip benchmark, tiny, on the session's Neo4j: it keeps `python -m benchmarks.neo4j_round_trips`
(a server of its own, hundreds of each round trip, one tree against another) from rotting."""

from __future__ import annotations

import re

import pytest

from benchmarks import neo4j_round_trips
from tests.backends import Backend


@pytest.mark.neo4j
def test_the_benchmark_reports_each_round_trip_against_the_first_tree(neo4j_backend: Backend,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = neo4j_backend.neo4j
    assert endpoint is not None
    assert neo4j_round_trips.main(["--uri", endpoint.uri, "--user", endpoint.user, "--password", endpoint.password,
                                   "--tree", "here=.", "--rounds", "1", "--count", "3"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    figures = re.findall(r"(read|write|note|fact) (\d+\.\d+) \(1\.00x\)", line)
    assert line.strip().startswith("here:") and [kind for kind, _ in figures] == list(neo4j_round_trips.KINDS)
    assert all(float(ms) > 0 for _, ms in figures)
