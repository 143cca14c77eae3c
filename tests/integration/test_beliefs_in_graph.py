"""The API's belief and statement tests, run again on a service that holds no belief layer
(GRAPH_SERVICE_BELIEFS=graph: every belief write plans and applies on what it reads of the graph, a start applies
nothing of the entries the graph holds to the layer), each followed by a verify of the store opened that way
(tests/integration/in_graph.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from tests.backends import Backend
from tests.integration.in_graph import client_in_graph
from tests.integration.test_api_beliefs import *  # noqa: F403  (their tests, run with this module's client)
from tests.integration.test_api_statements import *  # noqa: F403  (a statement's claims become belief evidence)


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with client_in_graph(backend.settings(), monkeypatch, knowledge=False, beliefs=True) as c:
        yield c
