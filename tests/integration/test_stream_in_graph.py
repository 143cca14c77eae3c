"""The API's stream and statement tests, run again on a service that holds no state of its own at all for them
(GRAPH_SERVICE_STREAM=graph: each stream or statement write plans and applies on the parts it reads of the graph;
with the knowledge state and the belief layer in the graph too, as a statement's claims become belief evidence),
each followed by a verify of the store opened that way (tests/integration/in_graph.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from tests.backends import Backend
from tests.integration.in_graph import client_in_graph
from tests.integration.test_api_statements import *  # noqa: F403  (their tests, run with this module's client)
from tests.integration.test_api_stream import *  # noqa: F403


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with client_in_graph(backend.settings(), monkeypatch, knowledge=True, beliefs=True, stream=True) as c:
        yield c
