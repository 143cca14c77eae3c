"""A start on Neo4j checks the schema in one statement and sets up only what is missing or not online."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Session
from neo4j.exceptions import ClientError

from graph_service.storage import neo4j_adapter, queries
from graph_service.storage.neo4j_adapter import Neo4jGraph, declared_schema_names
from tests.backends import Backend


def test_every_schema_statement_names_what_it_creates() -> None:
    names = declared_schema_names()
    assert len(names) == len(queries.statements("schema_neo4j")) == len(set(names))
    assert {"entry_seq", "item_id", "belief_confidence"} <= set(names)


def test_a_statement_that_names_nothing_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_adapter.queries, "statements",
                        lambda name: ["CREATE INDEX IF NOT EXISTS FOR (n:Item) ON (n.s)"])
    with pytest.raises(ValueError, match="names nothing"):
        declared_schema_names()


def _index_names(backend: Backend, graph: Neo4jGraph) -> set[str]:
    return {row[0] for row in backend.raw(graph, "SHOW INDEXES YIELD name RETURN name")}


def test_a_set_up_store_is_only_checked(neo4j_backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = neo4j_backend.open_graph()
    try:
        graph.setup_schema()
        assert isinstance(graph, Neo4jGraph) and graph.schema_online()
        sent: list[str] = []
        run = Session.run

        def recorded(self: Session, query: str, *args: Any, **kwargs: Any) -> Any:
            sent.append(query)
            return run(self, query, *args, **kwargs)

        monkeypatch.setattr(Session, "run", recorded)
        graph.setup_schema()
        assert sent == [queries.load("schema_online_neo4j")]
    finally:
        graph.close()


def test_a_missing_index_or_constraint_is_set_up_again(neo4j_backend: Backend) -> None:
    graph = neo4j_backend.open_graph()
    try:
        graph.setup_schema()
        neo4j_backend.raw(graph, "DROP INDEX belief_confidence")
        neo4j_backend.raw(graph, "DROP CONSTRAINT item_id")
        assert isinstance(graph, Neo4jGraph) and not graph.schema_online()
        assert not {"belief_confidence", "item_id"} & _index_names(neo4j_backend, graph)
        graph.setup_schema()
        assert graph.schema_online()
        assert set(declared_schema_names()) <= _index_names(neo4j_backend, graph)
    finally:
        graph.close()


def test_a_schema_that_cannot_be_listed_is_set_up_as_before(neo4j_backend: Backend,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    graph = neo4j_backend.open_graph()
    try:
        assert isinstance(graph, Neo4jGraph)
        graph.setup_schema()
        neo4j_backend.raw(graph, "DROP INDEX belief_confidence")
        run = graph.run

        def forbidden(name: str, params: dict[str, Any] | None = None) -> Any:
            if name == "schema_online_neo4j":
                raise ClientError("Permission denied: SHOW INDEX")
            return run(name, params)

        monkeypatch.setattr(graph, "run", forbidden)
        graph.setup_schema()
        assert "belief_confidence" in _index_names(neo4j_backend, graph)
    finally:
        graph.close()
