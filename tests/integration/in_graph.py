"""A client of the API on a service that holds no knowledge state (GRAPH_SERVICE_KNOWLEDGE=graph), for the
modules that run the API's tests again that way: afterwards the store, opened the same way, verifies (the
graph holds exactly what a replay of the journal gives, every write's projection included)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.service import Service


@contextmanager
def client_in_graph(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The API on `settings` with the knowledge state in the graph; every service it opened held none, and the
    store verifies after it, opened again the same way (a start that takes the knowledge entries as the graph
    holds them)."""
    settings = replace(settings, knowledge="graph")
    opened: list[Service] = []
    choose = Service._choose_knowledge

    def chosen(self: Service) -> None:
        choose(self)
        opened.append(self)

    monkeypatch.setattr(Service, "_choose_knowledge", chosen)
    with TestClient(create_app(settings)) as c:
        yield c
    assert opened and all(s.knowledge_in_graph for s in opened)
    service = Service.open(settings)
    try:
        assert service.knowledge_in_graph and not service.state.knowledge.items
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()
