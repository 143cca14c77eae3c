"""The young-server benchmark, tiny, on the session's Neo4j: it keeps `python -m benchmarks.neo4j_young_server` (a
server of its own, a start's schema, the plans of a list's size classes, a service's first writes) from rotting."""

from __future__ import annotations

import re

import pytest

from benchmarks import neo4j_young_server
from tests.backends import Backend


@pytest.mark.neo4j
def test_the_benchmark_reports_the_schema_the_list_sizes_and_the_first_writes(
        neo4j_backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = neo4j_backend.neo4j
    assert endpoint is not None
    assert neo4j_young_server.main(["--uri", endpoint.uri, "--user", endpoint.user, "--password", endpoint.password,
                                    "--rounds", "1", "--writes", "4"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"schema at a start \(medians of 1\): checked \d+\.\d ms, set up again \d+\.\d ms", out), out
    sizes = re.findall(r"item_reads_upto, (\d+) ids: (?:(?:map|list) \d+ then \d+ ms(?:, )?){2}", out)
    assert [int(size) for size in sizes] == list(neo4j_young_server.SIZES), out
    assert re.search(r"the first calls summed: map \d+ ms, list \d+ ms", out), out
    assert re.search(r"knowledge writes: the first \d+\.\d\d s; the next 3: \d+\.\d\d s in all", out), out
