"""Knowledge entries as the graph gives them (StoreState's `knowledge_taken`), so that the service applies
them without holding a knowledge state: an entry whose projection the graph holds is taken as it holds it (the
statuses it gave the items it wrote, all the other domains need of it), and one it does not hold yet is applied
on what its rules read of the graph as of the entry before it (as knowledge_region.apply_from_graph does), with
the bookkeeping the whole state would write beside it; where the graph does not hold the entry before it either (a
bulk load's batch in flight), on the run of entries applied since the last position it held (`Run`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from graph_service.digest_sum import moved_by
from graph_service.domain import Draft
from graph_service.from_graph.knowledge_region import KnownStart, PartsFromGraph, plan_from_graph
from graph_service.history import HistoryMissing
from graph_service.journal.chain import Entry
from graph_service.journal.store import PAGE  # positions read a statement, as the journal reads its entries
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.ops import items_named, keys_named
from graph_service.knowledge.partial import FINGERPRINT, STORE, apply_on, fingerprint_base, operations_of, scratch_state
from graph_service.knowledge.state import KnowledgeState
from graph_service.partial_reads import Fetched, PartialMap, Reader, read_ahead
from graph_service.projection import Projection
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.state import TakenOperation, item_statuses, kept_for_writes
from graph_service.storage.port import GraphPort


class KnowledgeFromGraph:
    """`knowledge_taken` for a state fed entries in journal order. `held()`: the last position whose projection
    the graph holds, with every one before it. An entry up to it is taken as the statuses it gave (but one
    carrying several operations is applied: `several_operations`); one past it is applied on what it reads."""

    def __init__(self, graph: GraphPort, held: Callable[[], int], page: int = PAGE,
                 clock_at: Callable[[int], int | None] = lambda _seq: None) -> None:
        """`clock_at(seq)`: the store clock after the entry at `seq` when the caller knows it without a statement
        (Journal.clock_at: its head's), else None."""
        self.graph, self.held, self.clock_at = graph, held, clock_at
        self.statuses = StatusesFromGraph(graph, held, page)
        self.applied = 0  # entries applied on what they read (the others were taken as the graph holds them)
        self._prepared: dict[int, list[TakenOperation]] = {}
        self._source: PartsFromGraph | None = None
        self._run: Run | None = None
        self._last = 0  # the last knowledge entry taken or applied
        self._held = 0  # what the graph held when the last entry was applied

    def source_at(self, upto: int) -> PartsFromGraph:
        """The parts of the knowledge store as of `upto`, read from the graph as they are asked for, kept for the
        next ask at the same position: a write's plan and its application read as of the same position (the
        head it planned on is the entry before it), so the application reads nothing the plan read. What the
        graph held at a position never changes, so what is kept stays true; only the last position is kept."""
        source = self._source
        if source is None or source.upto != upto:
            source = self._source = PartsFromGraph(self.graph, upto, whole=True, known=self._known_start(upto))
        return source

    def _known_start(self, upto: int) -> KnownStart | None:
        """The clock and the knowledge store's fingerprint as of `upto`, when no statement is needed for them: the
        journal's head is at `upto` (its clock), and the entry there is a knowledge entry applied here, on the run
        that keeps the fingerprint its writes left. None otherwise (the first knowledge write after a start, or
        after an entry of another kind or another writer's): they are read. Only the head itself: a knowledge
        entry the state takes without asking this layer (the graph holds all it did: StoreState._statuses_held)
        leaves `_last` behind, so a run's sum is trusted only where nothing came after the entry it applied."""
        run, last = self._run, self._last
        if run is None or run.last != last or last != upto:
            return None
        clock, fingerprint = self.clock_at(upto), run.fingerprint_at(last)
        return None if clock is None or fingerprint is None else KnownStart(clock, fingerprint)

    def __call__(self, entry: Entry) -> list[TakenOperation]:
        prepared = self._prepared.pop(entry.seq, None)
        if entry.seq <= self.held() and not several_operations(entry):
            taken = [TakenOperation(self.statuses(entry))]
            self._run, self._last = None, entry.seq  # a run ahead of the graph did not apply it
            return taken
        self.applied += 1
        return prepared if prepared is not None else self.apply(entry)

    def prepare(self, entry: Entry) -> None:
        """Apply a landed entry the graph does not hold yet on what it reads there, now (a writer's step off the
        event loop: Journal.write_steps), keeping what it gives for when the state applies it. Changes no state;
        raises what `apply` raises (and then nothing is kept)."""
        if entry.seq > self.held():
            self._prepared = {entry.seq: self.apply(entry)}  # one at a time: a writer's own entry

    def prepared(self, seq: int) -> list[TakenOperation]:
        """What `prepare` gave entry `seq`, kept for its application (none: not prepared)."""
        return self._prepared.get(seq) or []

    def apply(self, entry: Entry) -> list[TakenOperation]:
        """The entry's knowledge operations applied on what their rules read of the graph as of the entry before
        it, each with its bookkeeping (state.kept_for_writes): what applying it on the whole state writes.

        Where the graph does not hold the entry before it yet (a bulk load's batches in flight), the entry goes
        on the run of entries applied since the last position the graph held: one scratch state they were
        applied on in turn (`Run`). Raises what applying raises (and then the run is dropped), and RuntimeError
        when the graph holds neither the entry before it nor a run reaching it."""
        held = self.held()
        if held >= entry.seq - 1:
            run = Run(self.source_at(entry.seq - 1))  # a write on the head: its plan's reads are the run's
        else:
            run = self._ahead(entry.seq - 1, held)
            run.forget_upto(held)
            if held > run.source.upto and restart_due(run.applied, run.parts_held(), landed=held > self._held):
                run = run.again_from(PartsFromGraph(self.graph, held, whole=True))  # its memory stays bounded
        self._held = held
        self._run = None  # until the entry is applied whole: a failure midway leaves the state half changed
        taken = run.apply(entry)
        self._run, self._last = run, entry.seq
        return taken

    def read_ahead(self, entries: Sequence[Entry]) -> None:
        """A bulk load about to apply these entries in turn says so first: the keys and the items they name, and
        the items on those keys, that the run ahead of the graph does not hold yet are read in a statement each,
        where each would cost one as it is asked for (an addition reads its own item, its key, then the key's
        items, before anything else). A hint: it changes nothing a run gives, as what no entry of the run has
        touched reads the same at any time of it; nothing is read without a run."""
        run = self._current_run()
        if run is not None:
            run.read_ahead(entries)

    def _current_run(self) -> Run | None:
        """The run every knowledge entry since its start was applied on, up to the last one; None if there is none."""
        run = self._run
        return run if run is not None and self._last <= run.last else None

    def _ahead(self, position: int, held: int) -> Run:
        """The run whose state is the knowledge store as of `position`, past what the graph holds (`held`): the
        one every knowledge entry since its start was applied on (a planner may have started it, before any), or a
        new one from `held` when no knowledge entry came after it. RuntimeError when there is neither (an entry
        was applied elsewhere, or failed)."""
        run = self._current_run()
        if run is not None:
            return run
        if self._run is None and self._last <= held:  # what lies between is no knowledge entry: as the graph holds it
            return Run(PartsFromGraph(self.graph, held, whole=True))
        raise RuntimeError(f"no knowledge state as of position {position}: the graph holds the projections only "
                           f"up to {held}")

    def plan(self, plan: Callable[[KnowledgeState], Draft], head: int) -> Draft:
        """A knowledge planner's draft (or its refusal) on the store as of `head`, the journal's head: on what it
        reads of the graph, or, while the graph is behind the head (a bulk load), on the run of entries applied
        ahead of it (RuntimeError when there is none reaching the head)."""
        held = self.held()
        if held >= head:
            return plan_from_graph(self.graph, plan, head, self.source_at(head)).draft
        self._run = self._ahead(head, held)  # kept: the entry planned goes on it
        return plan(self._run.state)


# A run starts again from what the graph holds by then after RUN_ENTRIES entries, or sooner once its state holds
# RUN_PARTS parts (keys of the store's parts). A restart reads again, cold, the parts of the entries past that
# position (dozens an entry, where a warm run reads a few), so a run short in entries or parts costs speed: a
# bound of 40,000 parts restarted a load of 10^5 entries every few hundred and more than halved its speed. The parts
# bound is for entries that touch much of the store, where 4,000 of them would hold most of it
# (docs/stateless-path.md gives the loads measured).
RUN_ENTRIES = 4_000
RUN_PARTS = 200_000


def restart_due(applied: int, parts: int, *, landed: bool) -> bool:
    """Should a run that has applied `applied` entries and holds `parts` parts start again from what the graph
    holds? Once it is past a bound (RUN_ENTRIES, RUN_PARTS) and the graph has just taken more of it (`landed`: a
    load's batch landed since the entry before): the entries past what the graph holds, which a restart applies
    again cold, are then the fewest they will be (those of the batch being built, not of the one in flight too:
    73 knowledge entries a restart, where it was 181, in a load of a 10^5-entry export in batches of 500). Past
    twice a bound, at once, whatever landed."""
    over = max(applied / RUN_ENTRIES, parts / RUN_PARTS)
    return over >= 1 and (landed or over >= 2)


class Run:
    """Entries applied in turn on one scratch knowledge state, from the position `source` reads the graph as of:
    past it, the graph may not hold them (a bulk load appends a batch while the next is applied). What the
    state holds of a part no entry of the run touched is what the graph held there, so it is the store as of
    the last entry applied (`last`)."""

    def __init__(self, source: PartsFromGraph, fingerprint: tuple[int, int] | None = None) -> None:
        """`fingerprint`: the store's running sum at `source.upto`, when the caller knows it (else it is read once,
        when an entry moves it or a snapshot records it)."""
        self.source = source
        self.last = source.upto
        self.reader = Reader(source.answer, Fetched(), source.answer_many)
        self.state = scratch_state(self.reader, source.clock)
        if fingerprint is not None:
            self.reader.give(FINGERPRINT, {STORE: fingerprint})
        self.entries: list[Entry] = []  # those the graph may not hold yet
        self.applied = 0  # entries applied on the run, those it was started with included
        self._moved = (0, 0)  # what the run's entries moved the fingerprint by
        self._moves: list[tuple[int, int]] = []  # what they had moved it by after each of `entries`
        self._held_moved = (source.upto, (0, 0))  # the same after the last entry dropped (the graph holds it)

    def apply(self, entry: Entry) -> list[TakenOperation]:
        """The entry applied on the run's state, each of its knowledge operations with its bookkeeping."""
        region = apply_on(self.state, self.reader, operations_of(entry))
        taken = []
        for applied, scheduled, expiries, now in zip(region.applied, region.scheduled, region.expiries,
                                                     region.fingerprints, strict=True):
            base = self._fingerprint_base() if now != self._moved else fingerprint_base(self.state)
            before, after = (moved_by(base, self._moved), moved_by(base, now)) if base is not None else ((0, 0), (0, 0))
            bookkeeping = Projection()
            kept_for_writes(bookkeeping, entry.seq, scheduled, expiries, before, after)
            taken.append(TakenOperation(item_statuses(applied.projection), applied.projection, bookkeeping,
                                        applied.result))
            self._moved = now
        self.entries.append(entry)
        self._moves.append(self._moved)
        self.applied += 1
        self.last = entry.seq
        self._forget_read()
        return taken

    def read_ahead(self, entries: Iterable[Entry]) -> None:
        """Read the keys these entries name, then the items they name and the items on those keys, that the state
        does not hold yet, a statement each (see KnowledgeFromGraph.read_ahead)."""
        operations = [operation for entry in entries for operation in _operations(entry)]
        keys = [key for op, payload in operations for key in keys_named(op, payload)]
        read_ahead(self.state.by_key, keys)
        # An operation on a key decides the key's unit, whose members are every item on it: read with the rest.
        read_ahead(self.state.items, [*(item for op, payload in operations for item in items_named(op, payload)),
                                      *(item for key in keys for item in self.state.by_key.get(key, ()))])

    def _fingerprint_base(self) -> tuple[int, int]:
        # One value a run: the sum its entries' writes move is the one its state's snapshots record. Read once, a
        # lookup, when first needed; a restart is given it (again_from), so it is not read while a batch lands.
        if fingerprint_base(self.state) is None:
            self.reader.read(FINGERPRINT, STORE)
        base = fingerprint_base(self.state)
        assert base is not None
        return base

    def fingerprint_at(self, position: int) -> tuple[int, int] | None:
        """The store's running fingerprint (digest sum, count) as of `position`, the run's start or an entry it
        applied and has not dropped, as the run's writes keep it on the graph; None when the run has not read it
        (no entry moved it) or does not reach that position."""
        base = fingerprint_base(self.state)
        held_at, moved = self._held_moved
        if base is None or not held_at <= position <= self.last:
            return None
        for entry, after in zip(self.entries, self._moves, strict=True):
            if entry.seq > position:
                break
            moved = after
        return moved_by(base, moved)

    def _forget_read(self) -> None:
        # The state's maps hold every part they were given (and know every key they read), so what the source
        # and the reader kept of the store as it was is asked for by no later entry: dropping it keeps one copy
        # of each part a run read (the state that is never applied to shares it), where it kept four.
        self.source.forget()
        self.reader.fetched.clear()

    def parts_held(self) -> int:
        """How many parts (keys of the store's parts, present or known absent) the run's state holds."""
        return sum(len(part.known) for part in self.reader.targets[0].values() if isinstance(part, PartialMap))

    def forget_upto(self, held: int) -> None:
        """Drop the entries up to `held` (the graph holds them: a later run starts at or past them)."""
        if self.entries and self.entries[0].seq <= held:
            kept = next((at for at, entry in enumerate(self.entries) if entry.seq > held), len(self.entries))
            self._held_moved = (self.entries[kept - 1].seq, self._moves[kept - 1])
            self.entries, self._moves = self.entries[kept:], self._moves[kept:]

    def again_from(self, source: PartsFromGraph) -> Run:
        """A run from a later position the graph holds, with this run's entries past it applied again (what they
        give was taken already): the same state, without what the entries the graph now holds read."""
        run = Run(source, self.fingerprint_at(source.upto))
        again = [entry for entry in self.entries if entry.seq > source.upto]
        run.read_ahead(again)
        for entry in again:
            run.apply(entry)
        return run


def _operations(entry: Entry) -> list[tuple[str, Mapping[str, Any]]]:
    # Entries read ahead are not checked yet (a load checks each as it comes): a malformed one names nothing here,
    # and its check refuses it.
    if not isinstance(entry.payload, Mapping):
        return []
    try:
        operations = knowledge_ops(entry.op, entry.payload)
    except (KeyError, TypeError, AttributeError):
        return []
    return [(op, payload) for op, payload in operations if isinstance(payload, Mapping)]


def several_operations(entry: Entry) -> bool:
    """Does the entry carry more than one knowledge operation (an answer's)? Its WROTE edges keep what they did
    together, one change a node, where the other domains take each operation's changes in turn; so such an entry
    is applied on what it reads even where the graph holds it (answers are few, and it reads a handful of parts)."""
    return entry.op == ANSWER_QUESTION and len(entry.payload.get("knowledge") or ()) > 1


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
