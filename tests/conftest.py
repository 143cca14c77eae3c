"""Shared fixtures: the graph backends every integration test runs on.

The embedded FalkorDB always runs. The Neo4j parameter runs in a testcontainers Neo4j container
where a Docker engine answers, and is skipped with the reason where none does.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.port import GraphPort

# Timing is measured by benchmarks, not tests: no per-example deadline, so a loaded CI machine
# cannot turn a slow example into a failure. In CI the examples are derived from each test, so a
# landing run is reproducible; local runs draw afresh and explore.
settings.register_profile("graph_service", deadline=None, derandomize=os.environ.get("CI") == "true")
settings.load_profile("graph_service")


def docker_engine_problem() -> str | None:
    """Why there is no usable Docker engine here, or None when one answers."""
    no_socket = not os.path.exists("/var/run/docker.sock") and "DOCKER_HOST" not in os.environ
    if shutil.which("docker") is None and no_socket:
        return "no Docker client or engine on this machine"
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:  # any failure to reach the engine is a reason to skip, stated
        return f"no Docker engine answers ({type(exc).__name__}: {str(exc)[:120]})"
    return None


@pytest.fixture(scope="session")
def neo4j_container() -> Iterator[object]:
    problem = docker_engine_problem()
    if problem:
        pytest.skip(f"Neo4j backend not tested: {problem}; the testcontainers suite needs a Docker engine")
    try:  # testcontainers 4.10+ moved the Neo4j module under `community`
        from testcontainers.community.neo4j import Neo4jContainer
    except ImportError:
        from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer("neo4j:5") as container:
        yield container


BACKENDS = ["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)]


@pytest.fixture(params=BACKENDS)
def graph(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphPort]:
    """An empty graph on each backend."""
    if request.param == "falkordb":
        g = FalkorDBGraph.embedded(tmp_path / "data")
    else:
        container = request.getfixturevalue("neo4j_container")
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        g = Neo4jGraph(container.get_connection_url(), container.username, container.password)
        g._driver.execute_query("MATCH (n) DETACH DELETE n")  # each test starts from an empty graph
    try:
        yield g
    finally:
        g.close()
