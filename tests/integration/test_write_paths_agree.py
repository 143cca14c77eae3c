"""The graph a journal gives does not depend on the path that wrote it: the same entries written one
by one (each projected by the smallest statement that holds it) and bulk-loaded into an empty store
(folded into batches of 64, each appended while the next is planned) give the same nodes and edges,
every property included; and verify compares every property of every projected node and edge with a
replay, so it names one the graph holds wrongly.

Why property by property: verify compares statuses and confidences with a replay, and a FalkorDB
4.16 bug (one SET removing several properties removed the wrong ones; see
graph_service.projection._removals_apart) changed other properties of live writes while every status,
and so the whole suite, stayed right."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from benchmarks.service_shape import LOADER, mix
from graph_service.service import Service
from graph_service.storage.port import GraphPort
from tests.backends import Backend

# Every knowledge entry these tests write is also applied on what it reads from the graph, and must agree.
pytestmark = pytest.mark.usefixtures("knowledge_reads_checked")


def whole_graph(backend: Backend, graph: GraphPort) -> tuple[list[str], list[str]]:
    """Every node and edge as canonical text, sorted: a node by its labels and properties, an edge by its
    type, its ends' labels and keys (`id`, or an entry's `seq`) and its properties. The head's `log_id`,
    drawn at random for each store, is left out."""

    def key(labels: list[str], props: dict[str, Any]) -> str:
        return json.dumps([sorted(labels), props.get("id", props.get("seq"))])

    nodes = []
    for labels, props in backend.raw(graph, "MATCH (n) RETURN labels(n), properties(n)"):
        props = dict(props)
        if "Head" in labels:
            props.pop("log_id")
        nodes.append(json.dumps([sorted(labels), props], sort_keys=True))
    edges = [json.dumps([rel, key(a_labels, dict(a)), key(b_labels, dict(b)), dict(props)], sort_keys=True)
             for rel, a_labels, a, b_labels, b, props in backend.raw(
                 graph, "MATCH (a)-[r]->(b) RETURN type(r), labels(a), properties(a), labels(b), properties(b), "
                        "properties(r)")]
    return sorted(nodes), sorted(edges)


def test_single_writes_and_the_bulk_load_give_the_same_graph(backend: Backend, tmp_path: Any) -> None:
    service = Service.open(backend.settings())
    try:
        for plan in itertools.islice(mix(service, 400, 11), 400):
            service.journal.write(LOADER, plan)
        entries = list(service.journal.entries_after(0))
        written = whole_graph(backend, service.graph)
        report = service.verify()
        assert report.ok and report.projection_difference is None
    finally:
        service.close()
    loaded_into = backend.fresh_store(tmp_path / "loaded")
    loaded = Service.open(loaded_into.settings())
    try:
        assert loaded.journal.import_entries(entries, batch_size=64) == len(entries) == 400
        assert whole_graph(loaded_into, loaded.graph) == written
    finally:
        loaded.close()
    assert len(written[0]) > 1_000 and len(written[1]) > 1_000


def test_verify_names_a_property_the_graph_holds_wrongly(backend: Backend) -> None:
    service = Service.open(backend.settings())
    try:
        for plan in itertools.islice(mix(service, 60, 5), 60):
            service.journal.write(LOADER, plan)
        assert service.verify().ok
        item = sorted(service.state.knowledge.items)[0]
        for forgery, said in (
            ("SET n.summary = 'forged'", "property 'summary' is 'forged' in the graph"),
            ("REMOVE n.kind", "property 'kind' is missing from the graph (a replay gives 'fact')"),
            ("SET n.expires_at = 12345", "property 'expires_at' is 12345 in the graph, which a replay removes"),
        ):
            before = backend.raw(service.graph, "MATCH (n:Item {id: $i}) RETURN properties(n)", {"i": item})[0][0]
            backend.raw(service.graph, f"MATCH (n:Item {{id: $i}}) {forgery}", {"i": item})
            report = service.verify()
            # Statuses and confidences are as they were: only the property comparison sees it.
            assert report.replay_fingerprint == report.graph_fingerprint
            assert not report.ok and not report.projection_ok
            assert report.projection_difference is not None
            difference = report.projection_difference
            assert difference.startswith(f"node Item {item}: ") and said in difference
            apart = service.verify_apart()  # the API's verify: in a process of its own, reported as JSON
            assert not apart.ok and apart.projection_difference == difference
            backend.raw(service.graph, "MATCH (n:Item {id: $i}) SET n = $p", {"i": item, "p": dict(before)})
            assert service.verify().ok
        # And an edge's: one of the premises the mix's facts rest on.
        src, dst = backend.raw(service.graph, "MATCH (a:Item)-[r:DERIVED_FROM]->(b:Item) RETURN a.id, b.id "
                                              "ORDER BY a.id, b.id LIMIT 1")[0]
        backend.raw(service.graph, "MATCH (:Item {id: $a})-[r:DERIVED_FROM]->(:Item {id: $b}) SET r.forged = 1",
                    {"a": src, "b": dst})
        report = service.verify()
        assert not report.ok and report.replay_fingerprint == report.graph_fingerprint
        assert report.projection_difference == (f"edge Item {src} -[DERIVED_FROM]-> Item {dst}: property 'forged' "
                                                "is 1 in the graph, which a replay removes or never sets")
    finally:
        service.close()
