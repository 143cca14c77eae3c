"""What a replay's projections add up to, node by node and edge by edge, and the first place the
graph says otherwise.

Pure. verify feeds it every entry's projection as the replay applies it; the graph's nodes and edges
are then read back by id (`projected_nodes_by_id`, `projected_edges_by_ends`), a batch at a time, and
compared property by property. Why: the statuses and confidences verify compared before are not all
the graph holds, and a backend can get the rest wrong (FalkorDB 4.16's multi-removal SET did: see
projection._removals_apart).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

from graph_service.projection import EDGE_KINDS, NODE_LABELS, Projection

BATCH = 500
Kind = tuple[str, str, str]
T = TypeVar("T")


def ids_param(label: str) -> str:
    """The `projected_nodes_by_id` parameter that carries the ids of one label."""
    return f"ids_{label}"


def ends_param(kind: Kind) -> str:
    """The `projected_edges_by_ends` parameter that carries the ({src, dst}) ends of one edge kind."""
    rel, src, dst = kind
    return f"ends_{rel}_{src}_{dst}"


def _same(stored: Any, projected: Any) -> bool:
    if isinstance(stored, float) and isinstance(projected, float):
        # A double may come back from the backend's text form a last digit away from the one written.
        return math.isclose(stored, projected, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(stored, list) and isinstance(projected, list):
        return len(stored) == len(projected) and all(_same(s, p) for s, p in zip(stored, projected, strict=True))
    return bool(stored == projected)


def _first_difference(what: str, found: list[Mapping[str, Any]], projected: Mapping[str, Any]) -> str | None:
    """Why the one stored copy of `what` (`found`: every copy read back) does not hold the `projected`
    properties (a None: removed), in words; None when it does."""
    if len(found) != 1:
        return f"{what} is {'missing from' if not found else 'more than once in'} the graph"
    have = found[0]
    want = {k: v for k, v in projected.items() if v is not None}
    for name in sorted(set(want) | set(have)):
        if name not in have:
            return f"{what}: property {name!r} is missing from the graph (a replay gives {want[name]!r})"
        if name not in want:
            return f"{what}: property {name!r} is {have[name]!r} in the graph, which a replay removes or never sets"
        if not _same(have[name], want[name]):
            return f"{what}: property {name!r} is {have[name]!r} in the graph, {want[name]!r} in a replay"
    return None


def _chunks(keys: list[T], size: int) -> Iterator[list[T]]:
    return (keys[start:start + size] for start in range(0, len(keys), size))


class ProjectedGraph:
    """The properties each upserted node and each merged edge has after the projections fed so far:
    later over earlier, a None removing one (what the projection statements mean, whichever backend
    runs them); an edge also keeps `since_seq`, the first entry that wrote it."""

    def __init__(self) -> None:
        self._nodes: dict[tuple[str, str], dict[str, Any]] = {}
        self._edges: dict[tuple[Kind, str, str], dict[str, Any]] = {}

    def feed(self, seq: int, projection: Projection) -> None:
        """Add the projection of the entry at position `seq`."""
        for node in projection.nodes:
            self._nodes.setdefault((node.label, node.id), {}).update(node.props)
        for edge in projection.edges:
            self._edges.setdefault((edge.kind, edge.src, edge.dst), {"since_seq": seq}).update(edge.props)

    def node_batches(self, size: int = BATCH) -> Iterator[dict[str, list[str]]]:
        """`projected_nodes_by_id` parameters naming every node fed, `size` at a time (every label present)."""
        for chunk in _chunks(sorted(self._nodes), size):
            params: dict[str, list[str]] = {ids_param(label): [] for label in NODE_LABELS}
            for label, node_id in chunk:
                params[ids_param(label)].append(node_id)
            yield params

    def edge_batches(self, size: int = BATCH) -> Iterator[dict[str, list[dict[str, str]]]]:
        """`projected_edges_by_ends` parameters naming every edge fed, `size` at a time (every kind present)."""
        for chunk in _chunks(sorted(self._edges), size):
            params: dict[str, list[dict[str, str]]] = {ends_param(kind): [] for kind in EDGE_KINDS}
            for kind, src, dst in chunk:
                params[ends_param(kind)].append({"src": src, "dst": dst})
            yield params

    def first_node_difference(self, asked: Mapping[str, list[str]], rows: Iterable[Mapping[str, Any]]) -> str | None:
        """The first node of those `asked` that is missing, doubled, or whose stored properties (`rows`:
        label, id, props) are not the projected ones, in words naming the node and the property; None
        when all are."""
        stored: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for row in rows:
            stored.setdefault((row["label"], row["id"]), []).append(dict(row["props"]))
        for label in NODE_LABELS:
            for node_id in asked.get(ids_param(label), ()):
                # The statement's MERGE sets `id`; some upserts name it among their properties too.
                projected = {"id": node_id, **self._nodes[(label, node_id)]}
                difference = _first_difference(f"node {label} {node_id}", stored.get((label, node_id), []), projected)
                if difference is not None:
                    return difference
        return None

    def first_edge_difference(self, asked: Mapping[str, list[dict[str, str]]],
                              rows: Iterable[Mapping[str, Any]]) -> str | None:
        """The first edge of those `asked` that is missing, doubled, or whose stored properties (`rows`:
        rel, src_label, dst_label, src, dst, props) are not the projected ones; None when all are."""
        stored: dict[tuple[Kind, str, str], list[Mapping[str, Any]]] = {}
        for row in rows:
            kind = (row["rel"], row["src_label"], row["dst_label"])
            stored.setdefault((kind, row["src"], row["dst"]), []).append(dict(row["props"]))
        for kind in EDGE_KINDS:
            for ends in asked.get(ends_param(kind), ()):
                key = (kind, ends["src"], ends["dst"])
                what = f"edge {kind[1]} {ends['src']} -[{kind[0]}]-> {kind[2]} {ends['dst']}"
                difference = _first_difference(what, stored.get(key, []), self._edges[key])
                if difference is not None:
                    return difference
        return None
