"""The round-trip benchmark, tiny, on each backend (the session's Neo4j): it keeps `python -m benchmarks.round_trips`
(a store of its own, hundreds of each round trip, one tree against another) from rotting."""

from __future__ import annotations

import re

import pytest

from benchmarks import round_trips
from tests.backends import Backend


def _figures(line: str) -> list[tuple[str, str]]:
    return re.findall(r"(read|write|note|fact|retraction|observation) (\d+\.\d+) \(1\.00x\)", line)


def _reported(out: str) -> None:
    """Each kind's median against the first tree, then the writes in raw writes of their own child."""
    lines = [line.strip() for line in out.splitlines()]
    medians, in_raw = lines[-3], lines[-1]
    assert medians.startswith("here:") and [kind for kind, _ in _figures(medians)] == list(round_trips.KINDS)
    assert in_raw.startswith("here:") and [kind for kind, _ in _figures(in_raw)] == list(round_trips.KINDS[2:])
    assert all(float(ms) > 0 for _, ms in _figures(medians) + _figures(in_raw))


@pytest.mark.neo4j
def test_the_benchmark_reports_each_round_trip_against_the_first_tree(neo4j_backend: Backend,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = neo4j_backend.neo4j
    assert endpoint is not None
    assert round_trips.main(["--uri", endpoint.uri, "--user", endpoint.user, "--password", endpoint.password,
                             "--tree", "here=.", "--rounds", "1", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert "neo4j round trips" in out
    _reported(out)


def test_the_benchmark_runs_on_the_embedded_backend_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert round_trips.main(["--backend", "falkordb", "--tree", "here=.", "--rounds", "1", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert "falkordb round trips" in out
    _reported(out)
