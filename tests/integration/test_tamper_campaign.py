"""A tamper campaign on each backend: corruptions of every kind, each applied to a fresh copy of one
stored journal, straight in the database; verify must name each at its exact position and reason,
and never crash. The kinds no check inside the database can see (a consistent rewrite of a suffix,
a restored older copy) are found against a checkpoint the client kept."""

from __future__ import annotations

import collections
import itertools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from graph_service.journal import settled
from graph_service.journal.chain import Entry, entry_hash
from graph_service.journal.frontier import Frontier
from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal, VerifyReport
from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.falkordb_server import EmbeddedFalkorDB
from graph_service.storage.port import GraphPort
from graph_service.tlog.verifier import canonical_bytes
from tests.backends import Backend

N = 12  # entries in the journal every case starts from
_names = itertools.count()


@pytest.fixture(autouse=True, scope="module")
def _no_writer_in_flight() -> Iterator[None]:
    """No writer runs beside these stores: a projected marker behind its head is a tamper, not a projection on its
    way, so verify need not wait journal.settled.QUIET_SECONDS (30 s) to judge it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settled, "QUIET_SECONDS", 0.5)
        yield


class Stores:
    """Fresh stores holding the same journal: FalkorDB graphs by name on one server; Neo4j emptied and
    reloaded (Community holds one store)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._server = EmbeddedFalkorDB(backend.data_dir).start() if backend.neo4j is None else None
        self.entries: list[Entry] = []

    def graph(self) -> GraphPort:
        if self._server is not None:
            return FalkorDBGraph(socket_path=self._server.socket_path, graph=f"t{next(_names)}")
        self.backend.wipe()
        return self.backend.open_graph()

    def fresh(self) -> tuple[GraphPort, Journal]:
        graph = self.graph()
        journal = Journal(graph, [NoteDomain()], clock=iter(range(1_000, 10**9, 7)).__next__).open()
        if not self.entries:
            for i in range(N):
                journal.write("ann", lambda i=i: plan_note(f"note {i}"))
            self.entries = list(journal.entries_after(0))
        else:
            journal.import_entries(self.entries)
        return graph, journal

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()


@pytest.fixture(scope="module")
def stores(module_backend: Backend) -> Iterator[Stores]:
    made = Stores(module_backend)
    try:
        yield made
    finally:
        made.close()


def rechained(entries: list[Entry], start: int, edit: Callable[[Entry], dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries start..N rewritten by `edit`, re-hashed and re-treed consistently: what an attacker who
    knows the format writes."""
    frontier = Frontier()
    prev = "0" * 64
    rows = []
    for entry in entries:
        body = entry.body()
        if entry.seq >= start:
            body = {**body, **edit(entry)}
        digest = entry_hash(prev, body) if entry.seq >= start else entry.hash
        tree = frontier.tree_for(entry.seq, canonical_bytes(body))
        frontier.advance(entry.seq, tree)
        if entry.seq >= start:
            rows.append({"seq": entry.seq, "payload": json.dumps(body["payload"]), "prev": prev, "hash": digest,
                         "tree": [h.hex() for h in tree]})
        prev = digest
    return rows


def root_of(entries: list[Entry]) -> bytes:
    """The Merkle root of these entries, computed from their bodies alone."""
    frontier = Frontier()
    for entry in entries:
        frontier.advance(entry.seq, frontier.tree_for(entry.seq, canonical_bytes(entry.body())))
    return frontier.root()


REWRITE = ("UNWIND $rows AS r MATCH (e:Entry {seq: r.seq}) "
           "SET e.payload = r.payload, e.prev = r.prev, e.hash = r.hash, e.tree = r.tree")


@dataclass(frozen=True)
class Kind:
    name: str
    where: Callable[[random.Random], int]  # the position to corrupt
    apply: Callable[[Backend, GraphPort, list[Entry], int], None]
    expected: Callable[[int], int]  # the first bad position verify must name
    reason: str  # a word of the reason verify must give


def inner(rng: random.Random) -> int:
    return rng.randint(2, N - 1)


def odd_inner(rng: random.Random) -> int:
    return rng.choice([k for k in range(3, N - 1) if k % 2 == 1])


def set_entry(prop: str, value: Any) -> Callable[[Backend, GraphPort, list[Entry], int], None]:
    def apply(backend: Backend, graph: GraphPort, entries: list[Entry], k: int) -> None:
        backend.raw(graph, f"MATCH (e:Entry {{seq: $k}}) SET e.{prop} = $v", {"k": k, "v": value})
    return apply


def cypher(query: str) -> Callable[[Backend, GraphPort, list[Entry], int], None]:
    def apply(backend: Backend, graph: GraphPort, entries: list[Entry], k: int) -> None:
        backend.raw(graph, query, {"k": k, "n": N})
    return apply


def rewrite_one_with_hash(backend: Backend, graph: GraphPort, entries: list[Entry], k: int) -> None:
    body = {**entries[k - 1].body(), "payload": {"text": "forged"}}
    backend.raw(graph, "MATCH (e:Entry {seq: $k}) SET e.payload = $p, e.hash = $h",
                {"k": k, "p": json.dumps(body["payload"]), "h": entry_hash(entries[k - 1].prev, body)})


def rewrite_one_consistently(backend: Backend, graph: GraphPort, entries: list[Entry], k: int) -> None:
    # The entry's hash and its own Merkle leaf recomputed (k odd: no higher level stored with it).
    row = rechained(entries, k, lambda e: {"payload": {"text": "forged"}} if e.seq == k else {})[0]
    backend.raw(graph, REWRITE, {"rows": [row]})


def forge_after_head(backend: Backend, graph: GraphPort, entries: list[Entry], k: int) -> None:
    extended = [*entries, Entry(seq=N + 1, op="note", by="mallory", at=5, payload={"text": "forged"})]
    row = rechained(extended, N + 1, lambda e: {})[0]
    backend.raw(graph, "MATCH (p:Entry {seq: $n}) CREATE (e:Entry)-[:PREV]->(p) "
                       "SET e.seq = $n + 1, e.op = 'note', e.by = 'mallory', e.at = 5, e.payload = $r.payload, "
                       "e.prev = $r.prev, e.hash = $r.hash, e.tree = $r.tree", {"n": N, "r": row})


KINDS = [
    Kind("payload edited", inner, set_entry("payload", '{"text":"rewritten"}'), lambda k: k, "hash"),
    Kind("operation edited", inner, set_entry("op", "flag"), lambda k: k, "hash"),
    Kind("author edited", inner, set_entry("by", "mallory"), lambda k: k, "hash"),
    Kind("time edited", inner, set_entry("at", 1), lambda k: k, "hash"),
    Kind("time made text", inner, set_entry("at", "yesterday"), lambda k: k, "time"),
    Kind("hash edited", inner, set_entry("hash", "ab" * 32), lambda k: k, "hash"),
    Kind("hash truncated", inner, set_entry("hash", "ab" * 20), lambda k: k, "hex"),
    Kind("prev edited", inner, set_entry("prev", "cd" * 32), lambda k: k, "prev"),
    Kind("payload not JSON", inner, set_entry("payload", "{not json"), lambda k: k, "JSON"),
    Kind("payload a list", inner, set_entry("payload", "[1, 2]"), lambda k: k, "object"),
    Kind("payload removed", inner, cypher("MATCH (e:Entry {seq: $k}) REMOVE e.payload"), lambda k: k, "missing"),
    Kind("payload not canonical", inner, set_entry("payload", '{"text": 1e400}'), lambda k: k, "RFC 8785"),
    Kind("rewritten, hash recomputed", inner, rewrite_one_with_hash, lambda k: k, "Merkle"),
    Kind("rewritten, hash and leaf recomputed", odd_inner, rewrite_one_consistently, lambda k: k, "rewritten"),
    Kind("Merkle hash edited", inner, cypher("MATCH (e:Entry {seq: $k}) SET e.tree = ['" + "ef" * 32 + "']"),
         lambda k: k, "Merkle"),
    Kind("Merkle hashes removed", inner, cypher("MATCH (e:Entry {seq: $k}) REMOVE e.tree"), lambda k: k, "Merkle"),
    Kind("entry deleted", inner, cypher("MATCH (e:Entry {seq: $k}) DETACH DELETE e"), lambda k: k, "missing"),
    Kind("PREV edge deleted", inner, cypher("MATCH (:Entry {seq: $k})-[r:PREV]->() DELETE r"), lambda k: k, "PREV"),
    Kind("PREV edge to a wrong entry added", lambda rng: rng.randint(3, N - 1),
         cypher("MATCH (e:Entry {seq: $k}), (p:Entry {seq: $k - 2}) CREATE (e)-[:PREV]->(p)"), lambda k: k, "PREV"),
    Kind("PREV edge redirected", lambda rng: rng.randint(3, N - 1),
         cypher("MATCH (e:Entry {seq: $k})-[r:PREV]->(), (p:Entry {seq: 1}) DELETE r CREATE (e)-[:PREV]->(p)"),
         lambda k: k, "PREV"),
    Kind("position made text", inner, cypher("MATCH (e:Entry {seq: $k}) SET e.seq = toString(e.seq)"),
         lambda k: k, "missing"),
    Kind("position made fractional", inner, cypher("MATCH (e:Entry {seq: $k}) SET e.seq = e.seq + 0.5"),
         lambda k: k, "position"),
    Kind("forged node with a text position", inner, cypher("CREATE (:Entry {seq: toString($k), op: 'note'})"),
         lambda k: k, "not a positive integer"),
    Kind("forged entry after the head", inner, forge_after_head, lambda k: N + 1, "past the head"),
    Kind("head hash edited", inner, cypher("MATCH (h:Head) SET h.hash = '" + "12" * 32 + "'"), lambda k: N, "head"),
    Kind("head position lowered", inner, cypher("MATCH (h:Head) SET h.seq = $k"), lambda k: k + 1, "past the head"),
    Kind("head position raised", inner, cypher("MATCH (h:Head) SET h.seq = $n + $k"), lambda k: N + 1, "ends at"),
    Kind("head deleted", inner, cypher("MATCH (h:Head) DELETE h"), lambda k: N + 1, "no head"),
    Kind("projected marker lowered", inner, cypher("MATCH (h:Head) SET h.projected = $k"), lambda k: k + 1,
         "projected"),
    Kind("projected marker raised", inner, cypher("MATCH (h:Head) SET h.projected = $n + $k"), lambda k: N + 1,
         "projected"),
    Kind("format changed", inner, cypher("MATCH (h:Head) SET h.format = 1"), lambda k: 1, "format"),
]


def test_every_kind_is_named_at_its_position(stores: Stores, module_backend: Backend) -> None:
    rng = random.Random(20261201)
    per_kind = 10 if module_backend.neo4j is None else 3
    table: dict[str, collections.Counter[str]] = {}
    misses = []
    for kind in KINDS:
        for _ in range(per_kind):
            graph, _ = stores.fresh()
            k = kind.where(rng)
            try:
                kind.apply(module_backend, graph, stores.entries, k)
                report: VerifyReport = Journal(graph, [NoteDomain()]).verify()
            finally:
                graph.close()
            found = (not report.ok and report.first_bad == kind.expected(k)
                     and kind.reason.lower() in (report.reason or "").lower())
            table.setdefault(kind.name, collections.Counter())["found" if found else "missed"] += 1
            if not found:
                misses.append((kind.name, k, kind.expected(k), report.first_bad, report.reason))
    print("\n" + "\n".join(f"{name:40} {dict(c)}" for name, c in table.items()))
    assert not misses, misses
    assert sum(sum(c.values()) for c in table.values()) == per_kind * len(KINDS)


BY_DESIGN = {
    # A consistent rewrite of entries from k on, head and all: every check inside the database passes.
    "suffix rewritten consistently": lambda backend, graph, entries, k: (
        backend.raw(graph, REWRITE, {"rows": rechained(entries, k, lambda e: {"payload": {"text": f"x{e.seq}"}})}),
        backend.raw(graph, "MATCH (h:Head), (e:Entry {seq: $n}) SET h.hash = e.hash", {"n": N})),
    # An older copy restored: the entries after k are gone, and the head says k.
    "older copy restored": lambda backend, graph, entries, k: (
        backend.raw(graph, "MATCH (e:Entry) WHERE e.seq > $k DETACH DELETE e", {"k": k}),
        backend.raw(graph, "MATCH (h:Head), (e:Entry {seq: $k}) SET h.seq = $k, h.hash = e.hash, h.projected = $k",
                    {"k": k})),
}


@pytest.mark.parametrize("kind", sorted(BY_DESIGN))
def test_the_by_design_kinds_are_found_against_a_kept_checkpoint(stores: Stores, module_backend: Backend,
                                                                 kind: str) -> None:
    rng = random.Random(kind)
    for _ in range(5):
        graph, journal = stores.fresh()
        kept_root = journal.frontier.root()  # the checkpoint a client kept: size N, this root
        assert kept_root == root_of(stores.entries)
        k = rng.randint(2, N - 1)
        try:
            BY_DESIGN[kind](module_backend, graph, stores.entries, k)
            report = Journal(graph, [NoteDomain()]).verify(roots_at={N})
        finally:
            graph.close()
        assert report.ok, report  # invisible from inside the database ...
        # ... but not against the checkpoint: a different root at its size, or fewer entries than it covers.
        assert report.head_seq < N or report.roots[N] != kept_root
