"""The API's question tests, run again on a service that holds no unknowns or questions (GRAPH_SERVICE_QUESTIONS=
graph: each question write reads from the graph those it touches, a ranking every open one, and a start applies
nothing of the entries the graph holds to them), with every other option on too (the knowledge state, the belief
layer and the stream in the graph): each followed by their own verify and one of the store opened that way
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


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    tokens = backend.data_dir.parent / "tokens.json"
    tokens.write_text(json.dumps(test_api_questions.PRINCIPALS))
    with client_in_graph(replace(backend.settings(), tokens_file=tokens), monkeypatch, knowledge=True, beliefs=True,
                         stream=True, questions=True) as c:
        yield c
        assert test_api_questions.verified(c)
