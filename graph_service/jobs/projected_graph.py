"""What a replay's projections add up to, node by node and edge by edge, and the first place the
graph says otherwise.

verify feeds it every entry's projection as the replay applies it; the graph's nodes and edges are then
read back by id (`projected_nodes_by_id`, `projected_edges_by_ends`), a batch at a time, and compared
property by property. Why: the statuses and confidences verify compared before are not all the graph
holds, and a backend can get the rest wrong (FalkorDB 4.16's multi-removal SET did: see
projection._removals_apart).

What it adds up is kept in a private temporary SQLite database on disk (deleted when it is closed), not
in dicts: it is every property of every node and edge the journal ever wrote, 3.4 KB an entry of the
benchmark mix, twice what the replayed state itself holds, so verify's memory grew with the store for
it (issue 10: verify in bounded memory). Upserts are folded in memory until `FLUSH_KEYS` nodes and
edges are pending, then merged into the database; the batches read it back in order.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from types import TracebackType
from typing import Any

from graph_service.projection import EDGE_KINDS, NODE_LABELS, TOKEN_COUNTS, Projection

# Ids compared a statement. Verify runs beside requests, and FalkorDB runs a write only when no read is in flight:
# 500 ids of the 10^6 store's items took 26 ms, 100 take 2-12; the cost an id is the same (35-38 us an item).
BATCH = 100
FLUSH_KEYS = 5_000  # nodes and edges folded in memory before they are merged into the database
CACHE_KIB = 16_384  # SQLite's page cache for it: the rest stays on disk
Kind = tuple[str, str, str]


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


class _Folded:
    """A node's or an edge's writes folded in memory since the last flush: the first entry that wrote it, the last
    one that changed it (None: none did, an edge only MERGEd it, which makes it if it is not there), and the
    properties set."""

    __slots__ = ("props", "since", "touched")

    def __init__(self, since: int, touched: int | None) -> None:
        self.since = since
        self.touched = touched
        self.props: dict[str, Any] = {}


def _folded(table: dict[Any, _Folded], key: Any, seq: int) -> _Folded:
    """The fold of `key` in `table`, written by the entry at `seq`."""
    folded = table.get(key)
    if folded is None:
        folded = table[key] = _Folded(seq, seq)
    else:
        folded.touched = seq
    return folded


class ProjectedGraph:
    """The properties each upserted node and each merged edge has after the projections fed so far:
    later over earlier, a None removing one (what the projection statements mean, whichever backend
    runs them); an edge also keeps `since_seq`, the first entry that wrote it. Kept on disk (see the
    module's docstring); `close` (or leaving a `with` block) deletes it.

    Each node and edge also keeps the first entry that made it (`since_seq`: the nodes a replay makes up to any
    position can be counted, count_upto; the graph never deletes one) and the last that wrote it (`touched_seq`:
    what the entries fed after a position changed can be compared again, node_batches / edge_batches)."""

    def __init__(self) -> None:
        # An empty name: a private temporary database on disk, deleted when the connection closes.
        self._db = sqlite3.connect("", check_same_thread=False)
        self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        self._db.execute("CREATE TABLE nodes (label TEXT, id TEXT, since_seq INTEGER, touched_seq INTEGER, "
                         "props TEXT, PRIMARY KEY (label, id)) WITHOUT ROWID")
        self._db.execute("CREATE TABLE edges (rel TEXT, src_label TEXT, dst_label TEXT, src TEXT, dst TEXT, "
                         "since_seq INTEGER, touched_seq INTEGER, props TEXT, "
                         "PRIMARY KEY (rel, src_label, dst_label, src, dst)) WITHOUT ROWID")
        # Folded since the last flush: each node's and edge's first and last writers and properties set.
        self._nodes: dict[tuple[str, str], _Folded] = {}
        self._edges: dict[tuple[Kind, str, str], _Folded] = {}
        # The batch last handed out by node_batches / edge_batches, with its properties, for the comparison.
        self._batch_nodes: dict[tuple[str, str], dict[str, Any]] = {}
        self._batch_edges: dict[tuple[Kind, str, str], dict[str, Any]] = {}

    def __enter__(self) -> ProjectedGraph:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Delete what was fed."""
        self._db.close()

    def feed(self, seq: int, projection: Projection) -> None:
        """Add the projection of the entry at position `seq`."""
        for node in projection.nodes:
            _folded(self._nodes, (node.label, node.id), seq).props.update(node.props)
        for edge in projection.edges:
            key = (edge.kind, edge.src, edge.dst)
            # The edge statement MERGEs both ends: a node no upsert names is made with its id alone, and compared.
            # (It does not change one that is there: that is no write of it.)
            for end in ((edge.src_label, edge.src), (edge.dst_label, edge.dst)):
                if end not in self._nodes:
                    self._nodes[end] = _Folded(seq, None)
            if edge.rel == "HAS_TOKEN" and not self._has_edge(key):  # counted on the word's node as it is made
                self._count_token(edge.dst, TOKEN_COUNTS[edge.src_label], seq)
            _folded(self._edges, key, seq).props.update(edge.props)
        if len(self._nodes) + len(self._edges) >= FLUSH_KEYS:
            self._flush()

    def _has_edge(self, key: tuple[Kind, str, str]) -> bool:
        """Was this edge fed before (folded in memory, or merged into the database)?"""
        if key in self._edges:
            return True
        (rel, src_label, dst_label), src, dst = key
        return self._db.execute("SELECT 1 FROM edges WHERE rel = ? AND src_label = ? AND dst_label = ? AND src = ? "
                                "AND dst = ?", (rel, src_label, dst_label, src, dst)).fetchone() is not None

    def _count_token(self, token: str, counted: str, seq: int) -> None:
        """One more HAS_TOKEN edge into the Token node `token` from the label `counted` counts (the statement adds
        one as it makes each: projection.TOKEN_COUNTS), from 0 for each label."""
        props = _folded(self._nodes, ("Token", token), seq).props
        if counted not in props:
            stored = self._db.execute("SELECT props FROM nodes WHERE label = 'Token' AND id = ?", (token,)).fetchone()
            props[counted] = (json.loads(stored[0]) if stored is not None else {}).get(counted, 0)
        props[counted] += 1

    def _flush(self) -> None:
        """Merge what is folded in memory into the database, later properties over earlier."""
        self._merge("nodes", ("label", "id"), ((key, folded, {}) for key, folded in self._nodes.items()))
        self._merge("edges", ("rel", "src_label", "dst_label", "src", "dst"),
                    (((*kind, src, dst), folded, {"since_seq": folded.since})
                     for (kind, src, dst), folded in self._edges.items()))
        self._db.commit()
        self._nodes.clear()
        self._edges.clear()

    def _merge(self, table: str, columns: tuple[str, ...],
               folded: Iterable[tuple[tuple[str, ...], _Folded, dict[str, Any]]]) -> None:
        """Merge each (key, what was folded, the properties a new row holds besides those set) into `table` (our
        own names): a stored row keeps its first writer and takes the last one folded, if any."""
        where = " AND ".join(f"{column} = ?" for column in columns)
        rows = []
        for key, fold, new in folded:
            stored = self._db.execute(f"SELECT since_seq, touched_seq, props FROM {table} WHERE {where}",
                                      key).fetchone()
            if stored is None:  # made by the entry that first wrote it
                rows.append((*key, fold.since, fold.touched or fold.since, json.dumps({**new, **fold.props})))
            else:
                since, touched, props = stored
                rows.append((*key, since, fold.touched if fold.touched is not None else touched,
                             json.dumps({**json.loads(props), **fold.props})))
        if rows:
            self._db.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)

    def size_touched_after(self, seq: int) -> int:
        """How many nodes and edges the entries fed after position `seq` wrote (after 0: every one fed)."""
        self._flush()
        return sum(self._db.execute(f"SELECT count(*) FROM {table} WHERE touched_seq > ?", (seq,)).fetchone()[0]
                   for table in ("nodes", "edges"))

    def count_upto(self, label: str, seq: int) -> int:
        """How many nodes of `label` the projections fed up to position `seq` make."""
        self._flush()
        row = self._db.execute("SELECT count(*) FROM nodes WHERE label = ? AND since_seq <= ?", (label, seq)).fetchone()
        return int(row[0])

    def node_batches(self, size: int | None = None, touched_after: int | None = None
                     ) -> Iterator[dict[str, list[str]]]:
        """`projected_nodes_by_id` parameters naming every node fed (or, with `touched_after`, those the entries
        fed after that position wrote), `size` (BATCH) at a time (every label present), in (label, id) order.
        Each batch is read afresh after the last one handed out, so what is fed between two batches (verify's
        replay catching up with writes that landed meanwhile) is kept in order."""
        for chunk in self._batches("nodes", ("label", "id"), size or BATCH, touched_after):
            params: dict[str, list[str]] = {ids_param(label): [] for label in NODE_LABELS}
            self._batch_nodes = {}
            for label, node_id, props in chunk:
                params[ids_param(label)].append(node_id)
                self._batch_nodes[(label, node_id)] = json.loads(props)
            yield params

    def edge_batches(self, size: int | None = None, touched_after: int | None = None
                     ) -> Iterator[dict[str, list[dict[str, str]]]]:
        """`projected_edges_by_ends` parameters naming every edge fed (or those written after `touched_after`),
        `size` at a time (every kind present), in key order, each batch read afresh as `node_batches`'."""
        for chunk in self._batches("edges", ("rel", "src_label", "dst_label", "src", "dst"), size or BATCH,
                                   touched_after):
            params: dict[str, list[dict[str, str]]] = {ends_param(kind): [] for kind in EDGE_KINDS}
            self._batch_edges = {}
            for rel, src_label, dst_label, src, dst, props in chunk:
                params[ends_param((rel, src_label, dst_label))].append({"src": src, "dst": dst})
                self._batch_edges[((rel, src_label, dst_label), src, dst)] = json.loads(props)
            yield params

    def _batches(self, table: str, columns: tuple[str, ...], size: int,
                 touched_after: int | None) -> Iterator[list[tuple[Any, ...]]]:
        """The rows (key columns, props) of `table` (our own names), `size` at a time in key order, each read after
        the one before was handed out (what was fed meanwhile flushed first); with `touched_after`, only the rows
        written after that position."""
        keys = ", ".join(columns)
        bound = f"({keys}) > ({', '.join('?' * len(columns))})"
        touched = "" if touched_after is None else " AND touched_seq > ?"
        # From the last key handed out: a row-value bound the primary key seeks to (an `OR` with it would scan).
        query = f"SELECT {keys}, props FROM {table} WHERE {bound}{touched} ORDER BY {keys} LIMIT ?"
        last: tuple[Any, ...] = ("",) * len(columns)
        self._flush()
        while chunk := self._db.execute(query, (*last, *(() if touched_after is None else (touched_after,)),
                                                size)).fetchall():
            last = tuple(chunk[-1][:len(columns)])
            yield chunk
            self._flush()

    def refresh_batch(self) -> None:
        """Read the properties of the batches last handed out again, with what was fed since (verify's replay
        caught up with writes that landed while it compared)."""
        self._flush()
        for key in self._batch_nodes:
            row = self._db.execute("SELECT props FROM nodes WHERE label = ? AND id = ?", key).fetchone()
            self._batch_nodes[key] = json.loads(row[0])
        for (kind, src, dst) in self._batch_edges:
            row = self._db.execute("SELECT props FROM edges WHERE rel = ? AND src_label = ? AND dst_label = ? AND "
                                   "src = ? AND dst = ?", (*kind, src, dst)).fetchone()
            self._batch_edges[(kind, src, dst)] = json.loads(row[0])

    def first_node_difference(self, asked: Mapping[str, list[str]], rows: Iterable[Mapping[str, Any]]) -> str | None:
        """The first node of those `asked` (the batch `node_batches` handed out last) that is missing, doubled,
        or whose stored properties (`rows`:
        label, id, props) are not the projected ones, in words naming the node and the property; None
        when all are."""
        stored: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for row in rows:
            stored.setdefault((row["label"], row["id"]), []).append(dict(row["props"]))
        for label in NODE_LABELS:
            for node_id in asked.get(ids_param(label), ()):
                # The statement's MERGE sets `id`; some upserts name it among their properties too.
                projected = {"id": node_id, **self._batch_nodes[(label, node_id)]}
                difference = _first_difference(f"node {label} {node_id}", stored.get((label, node_id), []), projected)
                if difference is not None:
                    return difference
        return None

    def first_edge_difference(self, asked: Mapping[str, list[dict[str, str]]],
                              rows: Iterable[Mapping[str, Any]]) -> str | None:
        """The first edge of those `asked` (the batch `edge_batches` handed out last) that is missing, doubled,
        or whose stored properties (`rows`:
        rel, src_label, dst_label, src, dst, props) are not the projected ones; None when all are."""
        stored: dict[tuple[Kind, str, str], list[Mapping[str, Any]]] = {}
        for row in rows:
            kind = (row["rel"], row["src_label"], row["dst_label"])
            stored.setdefault((kind, row["src"], row["dst"]), []).append(dict(row["props"]))
        for kind in EDGE_KINDS:
            for ends in asked.get(ends_param(kind), ()):
                key = (kind, ends["src"], ends["dst"])
                what = f"edge {kind[1]} {ends['src']} -[{kind[0]}]-> {kind[2]} {ends['dst']}"
                difference = _first_difference(what, stored.get(key, []), self._batch_edges[key])
                if difference is not None:
                    return difference
        return None
