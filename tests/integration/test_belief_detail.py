"""`belief_detail` on every backend: one read gives what a belief's evidence, breakdown and families
fields answer (the flat lists joined by BeliefDetail)."""

from __future__ import annotations

from graph_service.api.belief_types import BeliefDetail
from graph_service.projection import Projection, statement_params
from graph_service.storage.port import GraphPort
from tests.backends import Backend
from tests.integration.test_projection_statement import prepare


def test_one_read_gives_evidence_roots_assertions_families_and_the_newest_version(graph: GraphPort) -> None:
    prepare(graph, 1)
    p = Projection()
    p.node("Belief", "b1", proposition="it holds", version=2)
    for version in (1, 2):
        p.node("BeliefVersion", f"b1/v{version}", version=version, breakdown=f"breakdown {version}")
        p.edge("VERSION_OF", "BeliefVersion", f"b1/v{version}", "Belief", "b1")
    rows = {"e1": ("ann", False), "e2": ("ann", True), "e3": ("sensor", False)}
    for row, (family, retracted) in rows.items():
        p.node("Evidence", row, belief="b1", retracted=retracted, created_seq=1)
        p.edge("BEARS_ON", "Evidence", row, "Belief", "b1")
        p.edge("FROM", "Evidence", row, "Family", family)
    p.node("Family", "ann", kind="actor", name="Ann")
    p.node("Family", "sensor", kind="source", name="sensor")
    p.edge("REPRESENTS", "Family", "ann", "Actor", "ann")
    p.edge("ROOTED_IN", "Evidence", "e1", "Observation", "o1")
    p.edge("ROOTED_IN", "Evidence", "e1", "Item", "i1")
    p.edge("YIELDED", "Assertion", "a1", "Evidence", "e1")
    p.node("Belief", "other")
    p.node("Evidence", "e9", belief="other", retracted=False, created_seq=1)
    p.edge("BEARS_ON", "Evidence", "e9", "Belief", "other")  # another belief's row stays out
    assert graph.run("project_entries", statement_params([(1, p)]))

    detail = BeliefDetail.of(graph.run("belief_detail", {"id": "b1"})[0])
    assert detail.latest is not None and detail.latest["breakdown"] == "breakdown 2"
    assert sorted(e["id"] for e in detail.evidence) == ["e1", "e2", "e3"]
    assert sorted(detail.roots["e1"], key=lambda r: r["id"]) == [{"id": "i1", "label": "Item"},
                                                                 {"id": "o1", "label": "Observation"}]
    assert detail.assertions == {"e1": ["a1"]}
    assert detail.families == [
        {"id": "ann", "kind": "actor", "name": "Ann", "actors": ["ann"], "rows": 2, "live_rows": 1},
        {"id": "sensor", "kind": "source", "name": "sensor", "actors": [], "rows": 1, "live_rows": 1},
    ]
    assert graph.run("belief_detail", {"id": "nobody"}) == []

    # The lean read: the same belief, evidence and families (without their actors), nothing else.
    full_row = graph.run("belief_detail", {"id": "b1"})[0]
    lean_row = graph.run("belief_evidence_families", {"id": "b1"})[0]
    assert set(full_row) - set(lean_row) == {"latest", "roots", "assertions", "actors"}
    assert {k: lean_row[k] for k in ("head", "projected", "belief")} == {
        k: full_row[k] for k in ("head", "projected", "belief")}
    lean = BeliefDetail.of(lean_row)
    assert lean.lean and not detail.lean
    assert (lean.latest, lean.roots, lean.assertions) == (None, {}, {})
    assert lean.evidence == detail.evidence
    assert lean.families == [{**f, "actors": []} for f in detail.families]
    assert graph.run("belief_evidence_families", {"id": "nobody"}) == []


def test_a_reader_whose_graph_is_behind_the_journal_catches_up_before_it_answers(backend: Backend) -> None:
    # Another writer's entry is durable but its projection failed (it is between its append and its
    # projection, or died there): the belief read sees the projected position behind the head, so this
    # process catches up (projecting what is missing) and answers with the new row.
    from starlette.testclient import TestClient

    from graph_service.api.app import create_app
    from graph_service.service import Service
    from graph_service.storage.port import GraphPort as Port
    from tests.integration.graphql_client import gql

    reader = Service.open(backend.settings())
    writer: Service | None = None
    try:
        client = TestClient(create_app(reader.settings, service=reader))
        made = gql(client, 'mutation { createBelief(proposition: "the valve is shut", evidence: [{weight: 0.6, '
                           'family: "ann"}]) { belief { id } } }')["data"]["createBelief"]["belief"]["id"]
        writer = Service(backend.another_connection(reader.graph), reader.settings)
        writer.journal.open()
        real: Port = writer.graph

        class NoProjection:
            backend = real.backend

            def run(self, name: str, params: dict | None = None) -> list:  # type: ignore[type-arg]
                if name.startswith("project_"):
                    raise ConnectionError("the writer died before its projection")
                return real.run(name, params)

        writer.journal.graph = NoProjection()  # type: ignore[assignment]
        writer.journal.write("bob", lambda: writer.state.beliefs.plan(  # type: ignore[union-attr]
            "evidence.add", {"belief": made, "weight": 0.7, "family": "sensor", "direction": "against"}))
        head = reader.graph.run("head_read")[0]
        assert head["projected"] < head["seq"]  # the graph is behind the journal
        answer = gql(client, 'query($b: String!) { belief(id: $b) { evidence { weight } } }', {"b": made})
        assert sorted(e["weight"] for e in answer["data"]["belief"]["evidence"]) == [0.6, 0.7]
        head = reader.graph.run("head_read")[0]
        assert head["projected"] == head["seq"]
    finally:
        if writer is not None:
            writer.journal.graph = real
            writer.close()
        reader.close()
