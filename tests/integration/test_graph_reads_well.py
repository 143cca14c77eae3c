"""The graph as people see it in Neo4j Browser, on each backend: every node of every label has a
`name` caption, and the values people filter on are plain properties, not JSON text."""

from __future__ import annotations

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.projection import NODE_LABELS
from tests.backends import Backend
from tests.integration.test_fuzz_api import SEED

MORE = [
    ('mutation { takeSnapshot(about: "door") { id } }', None),
    ('mutation { declareUnknown(situation: "deploy", factor: "owner", text: "who owns the deploy?") { id } }', None),
    ('mutation { nextQuestion { question { id } } }', None),
]


def test_every_node_has_a_caption(backend: Backend) -> None:
    with TestClient(create_app(backend.settings())) as client:
        for query, variables in [*SEED, *MORE]:
            client.post("/graphql", json={"query": query, "variables": variables})
    graph = backend.open_graph()
    try:
        seen = {}
        for label in (*NODE_LABELS, "Entry", "Head"):
            rows = backend.raw(graph, f"MATCH (n:{label}) RETURN n.id AS id, n.name AS name")
            seen[label] = len(rows)
            nameless = [row for row in rows if not isinstance(row[1], str) or not row[1].strip()]
            assert not nameless, (label, nameless[:3])
        assert all(seen[label] for label in ("Item", "Dispute", "Belief", "Evidence", "Observation", "Assertion",
                                             "Entry", "Head", "Family", "Actor", "BeliefVersion")), seen
        values = backend.raw(graph, "MATCH (d:Dispute) RETURN d.values")[0][0]
        assert sorted(values) == ["blue", "red"]  # text values as text, not as JSON
    finally:
        graph.close()
