"""Access modes at start-up on each backend: tokens given inline, and the open mode without tokens.

Kept apart from test_access.py, whose matrix shares one seeded app per backend for the module.
"""

from __future__ import annotations

import json
import logging

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend
from tests.integration.test_access import gql, head_seq


def test_tokens_inline_from_the_environment(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_SERVICE_TOKENS_JSON", json.dumps({"inline-secret": "writer"}))
    with TestClient(create_app(backend.settings())) as c:
        ok = c.post("/graphql", json={"query": 'mutation { note(text: "x") { seq } }'},
                    headers={"Authorization": "Bearer inline-secret"})
        assert ok.json() == {"data": {"note": {"seq": 1}}}
        assert c.post("/graphql", json={"query": "{ head { seq } }"}).status_code == 401


def test_open_mode_when_no_tokens(backend: Backend, monkeypatch: pytest.MonkeyPatch,
                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_TOKENS_JSON", raising=False)
    with caplog.at_level(logging.WARNING, logger="graph_service.api.access"), \
            TestClient(create_app(backend.settings())) as c:
        body = gql(c, 'mutation { note(text: "open") { seq } }', role=None)
        assert body == {"data": {"note": {"seq": 1}}}
        assert head_seq(c) == 1
    warnings = [r for r in caplog.records if "API is open" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
