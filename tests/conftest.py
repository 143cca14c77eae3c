"""Shared fixtures: the graph backends every integration test runs on.

The embedded FalkorDB always runs. The Neo4j parameter runs on a real Neo4j 5: a testcontainers
container where a Docker engine answers, else the Community server fetched from Maven Central and
run on Java (`graph_service.storage.neo4j_server`); it is skipped, with the reasons, only where
neither Docker nor Java and Maven exist.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from graph_service.storage.neo4j_server import LocalNeo4j, Neo4jUnavailable, free_port, missing_tools
from graph_service.storage.port import GraphPort
from tests.backends import Backend, Neo4jEndpoint

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
    if no_socket:
        return "no Docker engine socket (/var/run/docker.sock) and no DOCKER_HOST"
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:  # any failure to reach the engine is a reason to try the next way, stated
        return f"no Docker engine answers ({type(exc).__name__}: {str(exc)[:120]})"
    return None


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jEndpoint]:
    """One real Neo4j 5 for the session: a testcontainers container where a Docker engine answers,
    else the Community server from Maven Central on Java; skipped, with both reasons, where neither."""
    docker_problem = docker_engine_problem()
    if docker_problem is None:
        try:  # testcontainers 4.10+ moved the Neo4j module under `community`
            from testcontainers.community.neo4j import Neo4jContainer
        except ImportError:
            from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5") as container:
            yield Neo4jEndpoint(container.get_connection_url(), container.username, container.password)
        return
    java_problem = missing_tools()
    if java_problem:
        pytest.skip(f"Neo4j backend not tested: {docker_problem}, and the local server cannot run: {java_problem}")
    server = LocalNeo4j(tmp_path_factory.mktemp("neo4j"), bolt_port=free_port(), http_port=None,
                        heap="1g", page_cache="256m")
    try:
        server.start()
    except Neo4jUnavailable as exc:
        pytest.skip(f"Neo4j backend not tested: {docker_problem}, and {exc}")
    try:
        yield Neo4jEndpoint(server.uri, "neo4j", "neo4j", server=server)
    finally:
        server.stop()


BACKENDS = ["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A backend with an empty store: the embedded FalkorDB in this test's folder, or the session's
    Neo4j, emptied for this test."""
    if request.param == "falkordb":
        return Backend("falkordb", tmp_path / "data")
    endpoint: Neo4jEndpoint = request.getfixturevalue("neo4j_server")
    chosen = Backend("neo4j", tmp_path / "data", endpoint)
    chosen.wipe()
    return chosen


@pytest.fixture
def neo4j_backend(neo4j_server: Neo4jEndpoint, tmp_path: Path) -> Backend:
    """The session's Neo4j, emptied, for tests that are Neo4j's counterpart of an embedded-only test."""
    chosen = Backend("neo4j", tmp_path / "data", neo4j_server)
    chosen.wipe()
    return chosen


@pytest.fixture(scope="module", params=BACKENDS)
def module_backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Backend:
    """A backend with an empty store shared by one module's tests (for a costly set-up: a seeded app).
    A module that uses it must not also use `backend`, which empties the shared Neo4j per test."""
    data_dir = tmp_path_factory.mktemp(request.param) / "data"
    if request.param == "falkordb":
        return Backend("falkordb", data_dir)
    chosen = Backend("neo4j", data_dir, request.getfixturevalue("neo4j_server"))
    chosen.wipe()
    return chosen


@pytest.fixture
def graph(backend: Backend) -> Iterator[GraphPort]:
    """An empty graph on each backend."""
    g = backend.open_graph()
    try:
        yield g
    finally:
        g.close()


# --- the storage contract: every named query runs on every backend ----------------------------------

PER_BACKEND_FILES = {"falkordb": {"schema_falkordb"},
                     "neo4j": {"schema_neo4j", "await_indexes_neo4j", "schema_online_neo4j"}}
EXECUTED: dict[str, set[str]] = {"falkordb": set(), "neo4j": set()}


def _record_queries() -> None:
    """Count, per backend, which cypher/ files the suite executed (in this process)."""
    from graph_service.storage.falkordb_adapter import FalkorDBGraph
    from graph_service.storage.neo4j_adapter import Neo4jGraph

    for adapter in (FalkorDBGraph, Neo4jGraph):
        run, setup = adapter.run, adapter.setup_schema

        def recording_run(self, name, params=None, _run=run):  # type: ignore[no-untyped-def]
            EXECUTED[self.backend].add(name)
            return _run(self, name, params)

        def recording_setup(self, *args, _setup=setup, **kwargs):  # type: ignore[no-untyped-def]
            _setup(self, *args, **kwargs)
            EXECUTED[self.backend].update(PER_BACKEND_FILES[self.backend])

        adapter.run = recording_run  # type: ignore[method-assign]
        adapter.setup_schema = recording_setup  # type: ignore[method-assign]


_record_queries()


# The modules whose tests take longest (the slowest durations `make test` prints), collected first. Under
# `--dist loadscope` a module runs whole on one worker, in the order collected: the slowest of them came late in
# the alphabet (test_writers, its kill -9 campaign on Neo4j over two minutes), and the run ended with one worker
# busy minutes after the other had finished (the last 3% of one run took about 5 of its 28 minutes).
SLOWEST_FIRST = tuple(f"tests/{name}.py" for name in (
    "integration/test_writers", "integration/test_knowledge_as_of", "integration/test_service_shape_smoke",
    "integration/test_fuzz_api", "integration/test_beliefs_as_of", "test_cypher_lint",
    "integration/test_beliefs_in_graph", "integration/test_stream_as_of", "integration/test_access",
    "integration/test_over_http", "integration/test_services_on_one_neo4j", "unit/beliefs/test_write_state",
    "integration/test_write_paths_agree", "integration/test_tamper_campaign", "integration/test_workers",
    "integration/test_item_statuses_from_graph", "integration/test_startup",
))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest modules first (SLOWEST_FIRST), each module's tests together and in their order, the rest as
    collected: the same order in every xdist worker, as it requires."""
    rank = {module: place for place, module in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Under pytest-xdist, the controller gathers what each worker executed (see pytest_sessionfinish)."""
    for backend, names in getattr(node, "workeroutput", {}).get("executed", {}).items():
        EXECUTED[backend].update(names)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A whole run of the suite (no selection) fails unless every query ran on both backends. Under
    pytest-xdist each worker hands the names it executed to the controller, which checks them all."""
    config = session.config
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its part of the contract goes to the controller
        workeroutput["executed"] = {backend: sorted(names) for backend, names in EXECUTED.items()}
        return
    whole = not config.option.keyword and not config.option.markexpr.replace("not bench", "").strip() \
        and all(Path(a).resolve() == Path(config.rootpath, "tests").resolve() for a in config.args)
    if not whole or exitstatus != 0 or session.testscollected < 100:
        return
    from graph_service.storage import queries

    shared = queries.available() - set().union(*PER_BACKEND_FILES.values())
    missing = {backend: sorted((shared | PER_BACKEND_FILES[backend]) - EXECUTED[backend]) for backend in EXECUTED}
    missing = {backend: names for backend, names in missing.items() if names}
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if missing:
        if reporter is not None:
            reporter.write_line(f"storage contract: queries never executed: {missing}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif reporter is not None:
        reporter.write_line(f"storage contract: all {len(queries.available())} cypher/ files executed "
                            f"({len(EXECUTED['falkordb'])} on falkordb, {len(EXECUTED['neo4j'])} on neo4j)")
