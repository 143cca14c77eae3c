"""ProjectedGraph: what a replay's projections add up to, and the first difference from a graph."""

from __future__ import annotations

import pytest

from graph_service.jobs import projected_graph
from graph_service.jobs.projected_graph import ProjectedGraph, ends_param, ids_param
from graph_service.projection import EDGE_KINDS, NODE_LABELS, Projection


def fed(*projections: Projection) -> ProjectedGraph:
    nodes = ProjectedGraph()
    for seq, projection in enumerate(projections, start=1):
        nodes.feed(seq, projection)
    return nodes


def test_later_upserts_win_and_a_none_removes() -> None:
    first, second = Projection(), Projection()
    first.node("Flag", "f", why="w", open=True, until=5)
    second.node("Flag", "f", open=False, until=None)
    nodes = fed(first, second)
    asked = next(nodes.node_batches())
    stored = [{"label": "Flag", "id": "f", "props": {"id": "f", "why": "w", "open": False, "name": "flag: w"}}]
    assert nodes.first_node_difference(asked, stored) is None


def test_every_label_is_a_parameter_and_batches_cover_every_node_once() -> None:
    projection = Projection()
    for i in range(7):
        projection.node("Item", f"i{i}", summary="s")
    projection.node("Belief", "b", proposition="p")
    batches = list(fed(projection).node_batches(size=3))
    assert all(set(b) == {ids_param(label) for label in NODE_LABELS} for b in batches)
    named = [(k, i) for b in batches for k, ids in b.items() for i in ids]
    assert sorted(named) == sorted([("ids_Item", f"i{i}") for i in range(7)] + [("ids_Belief", "b")])
    assert [sum(len(ids) for ids in b.values()) for b in batches] == [3, 3, 2]


def test_each_kind_of_difference_is_named() -> None:
    projection = Projection()
    projection.node("Item", "k", summary="s", rank=2, weight=0.1 + 0.2)
    nodes = fed(projection)
    asked = next(nodes.node_batches())

    def said(props: dict[str, object] | None) -> str | None:
        rows = [] if props is None else [{"label": "Item", "id": "k", "props": {"id": "k", **props}}]
        return nodes.first_node_difference(asked, rows)

    good = {"summary": "s", "rank": 2, "weight": 0.30000000000000004, "name": "s"}
    assert said(good) is None
    assert said({**good, "weight": 0.3}) is None  # a double a last digit away, as text round trips give
    assert said(None) == "node Item k is missing from the graph"
    doubled = [{"label": "Item", "id": "k", "props": {"id": "k", **good}}] * 2
    assert nodes.first_node_difference(asked, doubled) == "node Item k is more than once in the graph"
    assert said({**good, "rank": 3}) == "node Item k: property 'rank' is 3 in the graph, 2 in a replay"
    assert said({k: v for k, v in good.items() if k != "rank"}) == \
        "node Item k: property 'rank' is missing from the graph (a replay gives 2)"
    assert said({**good, "expires_at": 9}) == \
        "node Item k: property 'expires_at' is 9 in the graph, which a replay removes or never sets"
    assert said({**good, "weight": 0.31}) is not None


def test_an_edge_keeps_its_first_writer_and_each_kind_of_difference_is_named() -> None:
    first, second, third = Projection(), Projection(), Projection()
    first.edge("DERIVED_FROM", "Item", "a", "Item", "b", w=1)
    third.edge("DERIVED_FROM", "Item", "a", "Item", "b", w=None, v=2)
    graph = fed(first, second, third)
    asked = next(graph.edge_batches())
    assert set(asked) == {ends_param(kind) for kind in EDGE_KINDS}
    assert asked["ends_DERIVED_FROM_Item_Item"] == [{"src": "a", "dst": "b"}]

    def said(*props: dict[str, object]) -> str | None:
        rows = [{"rel": "DERIVED_FROM", "src_label": "Item", "dst_label": "Item", "src": "a", "dst": "b", "props": p}
                for p in props]
        return graph.first_edge_difference(asked, rows)

    edge = "edge Item a -[DERIVED_FROM]-> Item b"
    assert said({"since_seq": 1, "v": 2}) is None
    assert said() == f"{edge} is missing from the graph"
    assert said({"since_seq": 1, "v": 2}, {"since_seq": 1, "v": 2}) == f"{edge} is more than once in the graph"
    assert said({"since_seq": 3, "v": 2}) == f"{edge}: property 'since_seq' is 3 in the graph, 1 in a replay"
    assert said({"since_seq": 1, "v": 2, "w": 1}) == \
        f"{edge}: property 'w' is 1 in the graph, which a replay removes or never sets"


def test_what_was_merged_into_the_database_folds_as_what_was_still_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every feed flushed (FLUSH_KEYS 1) and none flushed before the batches: the same properties either way.
    def projections() -> list[Projection]:
        first, second, third = Projection(), Projection(), Projection()
        first.node("Flag", "f", why="w", open=True, until=5, weight=0.1 + 0.2)
        first.edge("DERIVED_FROM", "Item", "a", "Item", "b", w=1)
        second.node("Flag", "f", open=False, until=None)
        second.node("Item", "i", summary="s", tags=["x", "y"])
        third.edge("DERIVED_FROM", "Item", "a", "Item", "b", w=None, v=2)
        return [first, second, third]

    def added_up() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
        with fed(*projections()) as graph:
            nodes = [dict(graph._batch_nodes) for _ in graph.node_batches(size=1)]
            edges = [dict(graph._batch_edges) for _ in graph.edge_batches(size=1)]
        return nodes, edges

    in_memory = added_up()
    monkeypatch.setattr(projected_graph, "FLUSH_KEYS", 1)
    flushed = added_up()
    assert flushed == in_memory
    assert in_memory == (
        # The edge's ends, made by its MERGE with their ids alone, are nodes too.
        [{("Flag", "f"): {"why": "w", "open": False, "until": None, "weight": 0.30000000000000004, "name": "flag: w"}},
         {("Item", "a"): {}}, {("Item", "b"): {}},
         {("Item", "i"): {"summary": "s", "tags": ["x", "y"], "name": "s"}}],
        [{(("DERIVED_FROM", "Item", "Item"), "a", "b"): {"since_seq": 1, "w": None, "v": 2}}],
    )


@pytest.mark.parametrize("flush_keys", [1, 5_000])
def test_nodes_are_counted_up_to_the_entry_that_first_made_them(monkeypatch: pytest.MonkeyPatch,
                                                                 flush_keys: int) -> None:
    monkeypatch.setattr(projected_graph, "FLUSH_KEYS", flush_keys)
    first, second, third = Projection(), Projection(), Projection()
    first.node("Item", "a", summary="s")
    second.edge("DERIVED_FROM", "Item", "a", "Item", "b")  # b is made by the edge's MERGE
    second.node("Belief", "x", proposition="p")
    third.node("Item", "b", summary="later")  # an upsert of a node made before: not a new one
    third.node("Item", "c", summary="t")
    with fed(first, second, third) as nodes:
        assert [nodes.count_upto("Item", seq) for seq in range(4)] == [0, 1, 2, 3]
        assert [nodes.count_upto("Belief", seq) for seq in range(4)] == [0, 0, 1, 1]
        assert nodes.count_upto("Flag", 3) == 0


def test_a_node_an_edge_made_alone_holds_its_id_only() -> None:
    """The edge statement MERGEs both ends: a node no upsert names is asked for and compared like any other."""
    projection = Projection()
    projection.edge("DERIVED_FROM", "Item", "a", "Item", "b")
    with fed(projection) as nodes:
        asked = next(nodes.node_batches())
        assert asked[ids_param("Item")] == ["a", "b"]
        bare = [{"label": "Item", "id": i, "props": {"id": i}} for i in ("a", "b")]
        assert nodes.first_node_difference(asked, bare) is None
        forged = [bare[0], {"label": "Item", "id": "b", "props": {"id": "b", "status": "active"}}]
        assert nodes.first_node_difference(asked, forged) == \
            "node Item b: property 'status' is 'active' in the graph, which a replay removes or never sets"
        assert nodes.first_node_difference(asked, bare[:1]) == "node Item b is missing from the graph"


@pytest.mark.parametrize("flush_keys", [1, 5_000])
def test_the_nodes_and_edges_written_after_a_position_are_batched_again(monkeypatch: pytest.MonkeyPatch,
                                                                       flush_keys: int) -> None:
    monkeypatch.setattr(projected_graph, "FLUSH_KEYS", flush_keys)
    first, second, third = Projection(), Projection(), Projection()
    first.node("Item", "a", summary="s")
    first.node("Item", "b", summary="s")
    second.node("Item", "b", summary="changed")
    second.edge("DERIVED_FROM", "Item", "a", "Item", "c")  # a is only MERGEd (not written); c is made
    third.edge("DERIVED_FROM", "Item", "a", "Item", "c", w=2)

    def named(batches: list[dict[str, list[object]]]) -> list[object]:
        return [x for b in batches for ids in b.values() for x in ids]

    with fed(first, second, third) as graph:
        assert named(list(graph.node_batches(touched_after=0))) == ["a", "b", "c"]
        assert named(list(graph.node_batches(touched_after=1))) == ["b", "c"]
        assert named(list(graph.node_batches(touched_after=2))) == []
        assert named(list(graph.edge_batches(touched_after=2))) == [{"src": "a", "dst": "c"}]
        assert named(list(graph.edge_batches(touched_after=3))) == []
        assert [graph.count_upto("Item", seq) for seq in range(4)] == [0, 2, 3, 3]
