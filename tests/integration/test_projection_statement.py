"""The projection statement on every backend: every allowed label and edge, and folding."""

from __future__ import annotations

from graph_service.journal.chain import FORMAT, GENESIS
from graph_service.projection import (
    EDGE_KINDS,
    KEPT_FOR_WRITES,
    NODE_LABELS,
    PROJECTION_PARTS,
    Projection,
    projection_statement,
    statement_params,
)
from graph_service.storage.port import GraphPort
from tests.backends import Backend


def prepare(graph: GraphPort, entries: int) -> None:
    graph.setup_schema()
    graph.run("head_init", {"genesis": GENESIS, "format": FORMAT, "log_id": "test", "keeps": KEPT_FOR_WRITES})
    prev = GENESIS
    for seq in range(1, entries + 1):
        stored = {"seq": seq, "op": "note", "by": "t", "at": 0, "payload": "{}", "prev": prev, "hash": f"h{seq}"}
        assert graph.run("append_entry", {"prev": prev, "seq": seq, "entry": stored})
        prev = f"h{seq}"


def test_every_allowed_label_and_edge_is_written(graph: GraphPort) -> None:
    prepare(graph, 1)
    projection = Projection()
    for label in NODE_LABELS:
        projection.node(label, f"{label}-1", name=label, tags=["a", "b"])
    for rel, src, dst in EDGE_KINDS:
        projection.edge(rel, src, f"{src}-1", dst, f"{dst}-2", weight=0.5)
    assert graph.run("project_entries", statement_params([(1, projection)])) == [{"projected": 1}]
    found = {row["item"]["id"]: row["item"] for row in graph.run("items_by_id", {"ids": ["Item-1", "Item-2"]})}
    assert found["Item-1"]["tags"] == ["a", "b"] and found["Item-1"]["name"] == "Item"
    assert graph.run("project_entries", statement_params([(1, projection)])) == []  # applied once only


def test_a_node_written_twice_in_one_statement_keeps_the_last_value(graph: GraphPort) -> None:
    # Regression: FalkorDB keeps only the first of several SETs on one node within a statement.
    prepare(graph, 2)
    first, second = Projection(), Projection()
    first.node("Item", "k-1", status="active", rank=3)
    second.node("Item", "k-1", status="retracted")
    second.node("Item", "k-1", status="refuted")
    graph.run("project_entries", statement_params([(1, first), (2, second)]))
    item = graph.run("items_by_id", {"ids": ["k-1"]})[0]["item"]
    assert (item["status"], item["rank"]) == ("refuted", 3)


def test_folding_lists_every_writer_once() -> None:
    first, second = Projection(), Projection()
    first.node("Flag", "f", v=1)
    second.node("Flag", "f", v=2)
    second.edge("COVERS", "Flag", "f", "Item", "i", since=1)
    second.edge("COVERS", "Flag", "f", "Item", "i", since=2)
    params = statement_params([(4, first), (5, second)])
    # One upsert with the last value, and each writer once with what it changed (the node's history).
    assert params["lists"]["n_Flag"] == [{"id": "f", "writes": [{"seq": 4, "changes": '{"v":1}'},
                                                       {"seq": 5, "changes": '{"v":2}'}], "props": {"v": 2},
                                 "gone": []}]
    assert params["lists"]["e_COVERS_Flag_Item"] == [{"src": "f", "dst": "i", "seq": 5, "props": {"since": 2},
                                                     "gone": []}]
    assert (params["first"], params["last"]) == (4, 5)


def test_each_part_writes_what_the_whole_statement_writes(graph: GraphPort) -> None:
    # A write runs the smallest part holding the clauses it uses; every part must write exactly what
    # project_entries writes for a projection within it (and advance the projected position once).
    parts = [p for p in PROJECTION_PARTS if PROJECTION_PARTS[p] != ((), ())]
    prepare(graph, len(parts) + 1)
    for seq, part in enumerate(parts, start=1):
        labels, kinds = PROJECTION_PARTS[part]
        projection = Projection()
        for label in labels:
            projection.node(label, f"{part}-{label}", summary=f"{part} {label}", tags=["x"])
        for rel, src, dst in kinds:
            projection.edge(rel, src, f"{part}-{src}", dst, f"{part}-{dst}-far", weight=0.25)
        name, params = projection_statement([(seq, projection)])
        assert name == part, (name, part)
        assert graph.run(name, params) == [{"projected": seq}]
        assert graph.run(name, params) == []  # applied once only
        if "Item" in labels:
            item = graph.run("items_by_id", {"ids": [f"{part}-Item"]})[0]["item"]
            assert item["tags"] == ["x"] and item["summary"] == f"{part} Item"
    # A projection that writes nothing moves only the marker.
    name, params = projection_statement([(len(parts) + 1, Projection())])
    assert name == "project_marker" and set(params) == {"first", "last"}
    assert graph.run(name, params) == [{"projected": len(parts) + 1}]


def test_a_projection_across_parts_runs_the_whole_statement() -> None:
    projection = Projection()
    projection.node("Flag", "f")
    projection.node("Assertion", "a")  # no part holds both
    name, params = projection_statement([(1, projection)])
    assert name == "project_entries" and params == statement_params([(1, projection)])
    smallest = Projection()
    smallest.node("Item", "i")
    assert projection_statement([(1, smallest)])[0] == "project_items"


def test_removals_are_passed_apart_one_map_each() -> None:
    projection = Projection()
    projection.node("Item", "k", a=1, b=None, c=None)
    projection.edge("DERIVED_FROM", "Item", "k", "Item", "j", w=None, v=2)
    params = statement_params([(1, projection)])
    item = params["lists"]["n_Item"][0]
    assert item["props"] == {"a": 1} and item["gone"] == [{"b": None}, {"c": None}]
    assert item["writes"] == [{"seq": 1, "changes": '{"a":1,"b":null,"c":null}'}]  # history keeps them
    assert params["lists"]["e_DERIVED_FROM_Item_Item"][0]["props"] == {"v": 2}
    assert params["lists"]["e_DERIVED_FROM_Item_Item"][0]["gone"] == [{"w": None}]


def test_properties_set_and_removed_land_as_written(backend: Backend, graph: GraphPort) -> None:
    """Random upserts that set and remove properties, several nodes and edges per statement: every node
    and edge ends with exactly the fold of what was written. Regression: with the removals in the map
    that sets the rest, FalkorDB 4.16 removed the wrong property about one update in ten."""
    import random

    rng = random.Random(7)
    names = [*"abcdefgh", "name"]
    statements = 60
    prepare(graph, statements)

    def some_props(among: list[str]) -> dict[str, object]:
        chosen = rng.sample(among, rng.randint(1, len(among)))
        return {n: (None if rng.random() < 0.4 else rng.randrange(9)) for n in chosen}

    nodes: dict[str, dict[str, object]] = {}
    edges: dict[tuple[str, str], dict[str, object]] = {}
    for seq in range(1, statements + 1):
        projection = Projection()
        for node_id in rng.sample([f"k-{i}" for i in range(6)], rng.randint(1, 4)):
            props = some_props(names)
            projection.node("Item", node_id, **props)
            nodes[node_id] = {k: v for k, v in {**nodes.get(node_id, {}), **props}.items() if v is not None}
        for _ in range(rng.randint(0, 2)):
            src, dst = rng.sample([f"k-{i}" for i in range(6)], 2)
            props = some_props(names[:8])
            projection.edge("DERIVED_FROM", "Item", src, "Item", dst, **props)
            edges[(src, dst)] = {k: v for k, v in {**edges.get((src, dst), {}), **props}.items() if v is not None}
            nodes.setdefault(src, {})
            nodes.setdefault(dst, {})
        name, params = projection_statement([(seq, projection)])
        assert graph.run(name, params) == [{"projected": seq}]
        stored = {row["item"]["id"]: {k: v for k, v in row["item"].items() if k != "id"}
                  for row in graph.run("items_by_id", {"ids": sorted(nodes)})}
        assert stored == nodes, seq
    assert edges
    for (src, dst), props in edges.items():
        found = backend.raw(graph, "MATCH (:Item {id: $s})-[r:DERIVED_FROM]->(:Item {id: $d}) RETURN properties(r)",
                            {"s": src, "d": dst})
        assert len(found) == 1 and {k: v for k, v in dict(found[0][0]).items() if k != "since_seq"} == props
