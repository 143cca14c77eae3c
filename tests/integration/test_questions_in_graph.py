"""The API's question tests, run again on a service that holds no knowledge state (GRAPH_SERVICE_KNOWLEDGE=graph),
and on one that holds no domain's state at all (GRAPH_SERVICE_KNOWLEDGE, BELIEFS, STREAM and QUESTIONS=graph: each
question write reads from the graph the unknowns and questions it touches, a ranking every open one, and a start
replays nothing), with their principals, each followed by their own verify and one of the store opened that way
(tests/integration/in_graph.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from tests.backends import Backend
from tests.integration import test_api_questions
from tests.integration.in_graph import client_in_graph
from tests.integration.test_api_questions import *  # noqa: F403  (their tests, run with this module's client)

pytestmark: list[pytest.MarkDecorator] = []  # not the imported module's knowledge_reads_checked


@pytest.fixture(params=["knowledge", "every domain"])
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    tokens = backend.data_dir.parent / "tokens.json"
    tokens.write_text(json.dumps(test_api_questions.PRINCIPALS))
    every = request.param == "every domain"
    with client_in_graph(replace(backend.settings(), tokens_file=tokens), monkeypatch, beliefs=every, stream=every,
                         questions=every) as c:
        yield c
        assert test_api_questions.verified(c)
