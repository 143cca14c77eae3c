"""Knowledge entries as the graph gives them (StoreState's `knowledge_taken`), so that the service applies
them without holding a knowledge state: an entry whose projection the graph holds is taken as it holds it (the
statuses it gave the items it wrote, all the other domains need of it), and one it does not hold yet is applied
on what its rules read of the graph as of the entry before it (knowledge_region.apply_from_graph), with the
bookkeeping the whole state would write beside it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping

from graph_service.digest_sum import MODULUS
from graph_service.history import HistoryMissing
from graph_service.journal.chain import Entry
from graph_service.knowledge.state import KnowledgeState
from graph_service.knowledge_region import PartsFromGraph, apply_from_graph
from graph_service.projection import Projection
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.state import TakenOperation, item_statuses, kept_for_writes
from graph_service.storage.port import GraphPort

PAGE = 2_000  # positions read a statement, as the journal reads its entries (journal.store.PAGE)


class KnowledgeFromGraph:
    """`knowledge_taken` for a state fed entries in journal order. `held()`: the last position whose projection
    the graph holds, with every one before it. An entry up to it is taken as the statuses it gave (but one
    carrying several operations is applied: `several_operations`); one past it is applied on what it reads."""

    def __init__(self, graph: GraphPort, held: Callable[[], int], page: int = PAGE) -> None:
        self.graph, self.held = graph, held
        self.statuses = StatusesFromGraph(graph, held, page)
        self.applied = 0  # entries applied on what they read (the others were taken as the graph holds them)
        self._prepared: dict[int, list[TakenOperation]] = {}
        self._source: PartsFromGraph | None = None

    def source_at(self, upto: int) -> PartsFromGraph:
        """The parts of the knowledge store as of `upto`, read from the graph as they are asked for, kept for the
        next ask at the same position: a write's plan and its application read as of the same position (the
        head it planned on is the entry before it), so the application reads nothing the plan read. What the
        graph held at a position never changes, so what is kept stays true; only the last position is kept."""
        source = self._source
        if source is None or source.upto != upto:
            source = self._source = PartsFromGraph(self.graph, upto, whole=True)
        return source

    def __call__(self, entry: Entry) -> list[TakenOperation]:
        prepared = self._prepared.pop(entry.seq, None)
        if entry.seq <= self.held() and not several_operations(entry):
            return [TakenOperation(self.statuses(entry))]
        self.applied += 1
        return prepared if prepared is not None else self.apply(entry)

    def prepare(self, entry: Entry) -> None:
        """Apply a landed entry the graph does not hold yet on what it reads there, now (a writer's step off the
        event loop: Journal.write_steps), keeping what it gives for when the state applies it. Changes no state;
        raises what `apply` raises (and then nothing is kept)."""
        if entry.seq > self.held():
            self._prepared = {entry.seq: self.apply(entry)}  # one at a time: a writer's own entry

    def apply(self, entry: Entry) -> list[TakenOperation]:
        """The entry's knowledge operations applied on what their rules read of the graph as of the entry before
        it, each with its bookkeeping (state.kept_for_writes): what applying it on the whole state writes.
        Raises what apply_from_graph raises, and RuntimeError when the graph does not hold the entry before it."""
        if self.held() < entry.seq - 1:  # what it would read as of the entry before it is not all in the graph yet
            raise RuntimeError(f"journal entry {entry.seq} cannot be applied from the graph, which holds the "
                               f"projections only up to {self.held()}")
        source = self.source_at(entry.seq - 1)
        region = apply_from_graph(self.graph, entry, entry.seq - 1, source)
        base: tuple[int, int] | None = None
        moved = (0, 0)
        taken = []
        for applied, scheduled, expiries, now in zip(region.applied, region.scheduled, region.expiries,
                                                     region.fingerprints, strict=True):
            if now != moved and base is None:  # read only when the fingerprint moves (one lookup)
                base = source.fingerprint_sum()
            before, after = (_moved(base, moved), _moved(base, now)) if base is not None else ((0, 0), (0, 0))
            bookkeeping = Projection()
            kept_for_writes(bookkeeping, entry.seq, scheduled, expiries, before, after)
            taken.append(TakenOperation(item_statuses(applied.projection), applied.projection, bookkeeping,
                                        applied.result))
            moved = now
        return taken


def several_operations(entry: Entry) -> bool:
    """Does the entry carry more than one knowledge operation (an answer's)? Its WROTE edges keep what they did
    together, one change a node, where the other domains take each operation's changes in turn; so such an entry
    is applied on what it reads even where the graph holds it (answers are few, and it reads a handful of parts)."""
    return entry.op == ANSWER_QUESTION and len(entry.payload.get("knowledge") or ()) > 1


def _moved(base: tuple[int, int], by: tuple[int, int]) -> tuple[int, int]:
    return (base[0] + by[0]) % MODULUS, base[1] + by[1]


class StatusesFromGraph:
    """The statuses held entries gave the items they wrote, for a state fed entries in journal order: those of
    a range of at most `page` positions, up to the last one the graph holds (`held()`), are read in one
    statement when an entry of it is first asked for (the WROTE edges' changes: every change of an item's
    status sets it on its node). Reads forward; an entry outside the range read last reads its range again."""

    def __init__(self, graph: GraphPort, held: Callable[[], int], page: int = PAGE) -> None:
        self.graph, self.held, self.page = graph, held, page
        self._after, self._until = 0, 0
        self._by_seq: dict[int, dict[str, str]] = {}
        self.statements = 0

    def __call__(self, entry: Entry) -> Mapping[str, str]:
        if not self._after < entry.seq <= self._until:
            # Never past what the graph holds: an entry appended later would read as one that wrote nothing.
            self._read(entry.seq - 1, max(entry.seq, min(entry.seq - 1 + self.page, self.held())))
        return self._by_seq.get(entry.seq, {})

    def _read(self, after: int, until: int) -> None:
        rows = self.graph.run("item_statuses_written_between", {"after": after, "until": until})
        self.statements += 1
        by_seq: dict[int, dict[str, str]] = {}
        for row in rows:
            if row["changes"] is None:  # written before history was kept
                raise HistoryMissing(row["seq"])
            status = json.loads(row["changes"]).get("status")
            if status is not None:
                by_seq.setdefault(row["seq"], {})[row["id"]] = status
        self._after, self._until, self._by_seq = after, until, by_seq


def read_named(graph: GraphPort, knowledge: KnowledgeState, ids: Iterable[str]) -> None:
    """Read into a scratch knowledge state (knowledge.partial) the recorded snapshots among `ids`, which a
    question's planner looks up by the id it is given (a declaration's decisions, a preference): their nodes'
    properties, as the planners ask only whether one was recorded. Items, flags and disputes named by id are
    parts of the scratch state, read when asked for."""
    wanted = sorted({i for i in ids if isinstance(i, str) and i})
    if wanted:
        for row in graph.run("snapshots_by_id", {"ids": wanted}):
            knowledge.snapshots[row["id"]] = dict(row["snapshot"])
