"""Fixtures of the API tests: the app on a fresh store of each backend, with the lifespan run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend
from tests.knowledge_reads_check import knowledge_reads_checked  # noqa: F401  (a fixture for the modules)


@pytest.fixture
def client(backend: Backend) -> Iterator[TestClient]:
    """The API on an empty store of each backend (embedded FalkorDB in this test's folder, or Neo4j)."""
    with TestClient(create_app(backend.settings())) as c:
        yield c
