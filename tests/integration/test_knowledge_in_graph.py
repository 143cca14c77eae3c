"""The API's knowledge and belief tests, run again on a service that holds no knowledge state
(GRAPH_SERVICE_KNOWLEDGE=graph: every knowledge write plans and applies on what it reads of the graph, a start
takes the knowledge entries as the graph holds them), each followed by a verify of the store opened that way
(tests/integration/in_graph.py). Their check of the graph's reader against the in-memory state
(knowledge_reads_checked) has no in-memory state to check against here, and is not used."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from tests.backends import Backend
from tests.integration.in_graph import client_in_graph
from tests.integration.test_api_beliefs import *  # noqa: F403  (their tests, run with this module's client)
from tests.integration.test_api_knowledge import *  # noqa: F403

pytestmark: list[pytest.MarkDecorator] = []  # not the imported modules' knowledge_reads_checked


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with client_in_graph(backend.settings(), monkeypatch) as c:
        yield c
