"""The journal on a graph: append with compare-and-set, then project, and catch up after a crash.

Design (SPEC 3.3, the write-ahead variant): a write is (1) planned against the in-memory state,
(2) appended as one `Entry` node by a single atomic statement guarded by the head's hash
(`append_entry`), then (3) applied to the pure in-memory domains and its graph changes written
by a single atomic statement guarded by the head's projected position (`project_entries`, or the
smallest of its parts that holds what the entry changes).
Why this design: the in-memory state only ever applies committed entries, in journal order, so a
writer that loses a race has nothing to undo — it catches up and plans again; and a crash
between (2) and (3) leaves an entry that the next reader or start-up projects (the projection is
a pure function of the journal prefix, so whoever applies it writes the same thing).
Bulk loads are in journal/bulk_load.py, the projections kept for a catch-up in journal/kept_projections.py, and
reads that hold for one position beside writes in journal/settled.py.
"""

from __future__ import annotations

import gc
import logging
import secrets
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from graph_service.domain import Applied, Domain, Draft, no_hint
from graph_service.errors import JournalBroken, StoreFormatError, UserError
from graph_service.journal.audit import Finding, JournalAudit
from graph_service.journal.background_audit import BackgroundAudit
from graph_service.journal.bulk_load import BulkLoad
from graph_service.journal.chain import (
    FORMAT,
    GENESIS,
    MAX_PAYLOAD_BYTES,
    Entry,
    sealed_with_bytes,
)
from graph_service.journal.clock import clock_after
from graph_service.journal.frontier import Frontier, frontier_positions
from graph_service.journal.kept_projections import KeptProjections
from graph_service.journal.once import WriteOnce
from graph_service.journal.payloads import entry_from_row, storable_payload
from graph_service.journal.settled import head_row, read_settled
from graph_service.journal.steps import Step, run_steps
from graph_service.projection import KEPT_FOR_WRITES, Projection, projection_statement
from graph_service.storage.port import ConstraintViolation, GraphPort
from graph_service.tlog.verifier import EntryError

log = logging.getLogger(__name__)

# Entries read a statement when the journal is read in order (verify, the start's chain check, a rebuild, a catch-up).
# Small, because such a read runs beside requests: FalkorDB runs a write only when no read of the graph is in
# flight, so a write waited for the page being read. At 10^6 entries a page of 2,000 took 49 ms of the server (p50)
# and writes during the start's chain check were slow at p90 (18.6 ms against 1.8 ms at 10^4); a page of 100 takes
# 2 ms and reads as many entries a second (35,600 at 2,000, 39,200 at 100; docs/stateless-path.md, stop 50).
PAGE = 100
# The payload member that records how the author authenticated ({"role": ...}); no domain reads it.
AUTHOR_KEY = "_author"
MAX_APPEND_ATTEMPTS = 1_000


def _never(_entry: Entry) -> bool:
    return False


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class WriteResult:
    """The entry a write appended and what applying it returned."""

    entry: Entry
    result: Any


@dataclass(frozen=True)
class VerifyReport:
    """The chain check plus the head check; `first_bad` names the first broken position."""

    ok: bool
    checked: int
    head_seq: int
    first_bad: int | None = None
    reason: str | None = None
    roots: dict[int, bytes] = field(default_factory=dict)
    """Root hashes of the Merkle tree at the sizes asked for, as recomputed from the entries."""


def legacy_store_message(head: dict[str, Any]) -> str:
    return (f"this store's journal ({head['seq']} entries) is in format 1, hashed over Python's own JSON, "
            f"which verifiers in other languages cannot reproduce; this version writes format {FORMAT} "
            "(RFC 8785 entries and an RFC 9162 Merkle tree). It is refused rather than rewritten in place, "
            "so the old chain stays as it was: export it with `graph_service export --output old.jsonl`, then "
            "load it into a new store with `graph_service load --from-format 1 old.jsonl`, which checks "
            "the old chain and re-seals every entry unchanged in the new format")


class Journal(BulkLoad):
    """A journal kept in a graph, with the pure domains it feeds and projects (bulk loads: BulkLoad)."""

    def __init__(self, graph: GraphPort, domains: Sequence[Domain], *, clock: Callable[[], int] = now_ms) -> None:
        self.graph = graph
        self.domains = list(domains)
        self.clock = clock
        self.seq = 0
        self.hash = GENESIS
        self.store_clock = 0  # the store clock after entry `seq` (graph_service.journal.clock)
        self._lock = threading.RLock()
        # Positions this process is appending at, and the results of those a catch-up applied meanwhile.
        self._awaited: set[int] = set()
        self._pending_results: dict[int, Any] = {}
        # The last position this process projected or saw projected; below self.seq after a projection
        # failed, when catch-up re-derives the missing projections from the journal, and while this
        # process's own projection of the entry after it is on its way (`_projecting`).
        self._projected = 0
        self._head_projected = 0  # the head's projected position when this process last read it
        self._projecting: int | None = None
        # What this process applied and computed the projection of, but the graph does not hold yet (its
        # statement failed, or one before it is missing): a catch-up writes these in order.
        self.unprojected = KeptProjections()
        self.frontier = Frontier()
        self.broken: Finding | None = None
        self.legacy = False
        self.keeps: int | None = None  # what the graph keeps for writes (projection.KEPT_FOR_WRITES), from the head
        self.stateless = False  # the domains hold nothing the graph holds: a start replays nothing (`open`)
        self.audit: BackgroundAudit | None = None  # a stateless start's check of the chain, in a process of its own

    # --- start-up -------------------------------------------------------------------------

    def open(self, *, allow_legacy: bool = False, prepared: Callable[[], bool | None] | None = None) -> Journal:
        """Set up the schema, create the head if new, replay the journal and project what is behind.

        StoreFormatError for a journal in format 1 (unless `allow_legacy`, for reading it to export).
        A broken chain does not stop the start: the state is the sound prefix, and writes are refused
        (JournalBroken, naming the position) until the store is repaired. `prepared` runs once the head is
        read (what the graph keeps is known), before the replay; when it answers True, the domains hold nothing
        the graph holds, and the journal replays nothing (`stateless`: see `_replay_all`).
        """
        if not self.prepare(allow_legacy=allow_legacy):
            self.legacy = True
            return self
        if prepared is not None:
            self.stateless = bool(prepared())
        with self._lock:
            self._replay_all()
            if self.broken is not None:
                log.error("journal chain broken at %s: %s", self.broken.position, self.broken.reason)
            self.catch_up()
        return self

    def prepare(self, *, allow_legacy: bool = False) -> bool:
        """Set up the schema and create the head if new, without reading the journal: True for a store in
        this format, False for a format-1 store when `allow_legacy`, else StoreFormatError."""
        self.graph.setup_schema()
        head = self.graph.run("head_init", {"genesis": GENESIS, "format": FORMAT, "log_id": secrets.token_hex(8),
                                            "keeps": KEPT_FOR_WRITES})[0]
        self.keeps = head.get("keeps")
        if head.get("format") == FORMAT:
            return True
        if not allow_legacy:
            raise StoreFormatError(legacy_store_message(head))
        return False

    def _replay_all(self) -> None:
        """Rebuild the in-memory state from the stored entries, checked before each is applied, and project
        those the graph lacks. At the first unsound entry the replay stops there (see `broken`).

        A stateless journal (its domains hold nothing the graph holds) starts instead from the position the graph
        holds: its hash, the store clock after it and the Merkle frontier, from O(log n) stored entries (no entry
        before it is read); only the entries past it (a crash between an append and its projection) are checked,
        applied and projected. The chain up to that position is checked in a process of its own
        (`BackgroundAudit`): the start does not wait for it, and writes are refused once it finds a break."""
        if not self.stateless:
            gc.unfreeze()  # the state being replaced may have been frozen at start (api/startup.py): let it go
        self._reset_domains()
        self.unprojected.clear()
        projected = self.stored_head()["projected"]
        self._projected = self._head_projected = projected
        self.seq, self.hash, self.store_clock, self.frontier = self.stored_position(
            projected if self.stateless else 0)
        for domain in self.domains:
            getattr(domain, "resume_at", no_hint)(self.seq)
        audit = JournalAudit(after=self.seq, prev=self.hash, frontier=self.frontier, clock=self.store_clock)
        projected_hash = self.hash
        self._tell_graph_holds(projected)
        try:
            for row in self.entry_rows_after(self.seq):
                entry = audit.feed(row)
                if entry is None:
                    break
                self._apply_and_project(entry)
        finally:
            self._tell_graph_holds(0)  # what comes next is written by this journal and needs its projection
        self.broken = audit.finding
        if self.stateless:
            self._check_chain_upto(projected, projected_hash)

    def _check_chain_upto(self, position: int, position_hash: str) -> None:
        """Check the chain up to `position` (whose entry's stored hash is `position_hash`) in the background, on from
        where a check last found it sound (`chain_checked`), unless a check of it is under way or done (its
        finding, if it has one, is the verdict); nothing to check in a new store."""
        if self.broken is None and self.audit is not None:
            self.broken = self.audit.finding  # what the check of the chain before it found, if it has
        if position and (self.audit is None or self.audit.upto != position):
            self.audit = BackgroundAudit(self, position, position_hash, after=self.chain_checked(position))
            self.audit.start()

    def chain_checked(self, upto: int) -> int:
        """The position up to which a check last found the chain sound (cypher/chain_check_keep), if it is at most
        `upto` and the entry stored there still has the hash that check saw; else 0 (check it all)."""
        kept = self.graph.run("chain_check_read")
        if not kept or not isinstance(seq := kept[0].get("seq"), int) or not 0 < seq <= upto:
            return 0
        return seq if kept[0].get("stored") == kept[0].get("hash") else 0

    def stored_position(self, seq: int) -> tuple[int, str, int, Frontier]:
        """(position, hash, store clock, Merkle frontier) after the entry at `seq`, from the stored entries at
        `frontier_positions(seq)` (the entry itself among them). StoreFormatError when they lack what that needs
        (a store written before entries kept their clock)."""
        if seq == 0:
            return 0, GENESIS, 0, Frontier()
        rows = self.graph.run("entries_at", {"seqs": sorted({seq, *frontier_positions(seq).values()})})
        found = {row["seq"]: row for row in rows}
        last = found.get(seq)
        if last is None or not isinstance(last.get("clock"), int) or not isinstance(last.get("hash"), str):
            raise StoreFormatError(f"the entry at {seq} keeps no hash or store clock to start from")
        try:
            frontier = Frontier.restored(seq, {s: [bytes.fromhex(h) for h in row["tree"] or ()]
                                               for s, row in found.items()})
        except ValueError as exc:
            raise StoreFormatError(f"the Merkle frontier at {seq} cannot be read back: {exc}") from None
        return seq, last["hash"], last["clock"], frontier

    def _tell_graph_holds(self, seq: int) -> None:
        # A hint: a domain may skip building what the graph already holds (StoreState.graph_holds_upto).
        for domain in self.domains:
            getattr(domain, "graph_holds_upto", no_hint)(seq)

    def _reset_domains(self) -> None:
        for domain in self.domains:
            reset = getattr(domain, "reset", None)
            if reset is None:
                raise RuntimeError(f"{type(domain).__name__} cannot be reset for a replay")
            reset()

    # --- reading --------------------------------------------------------------------------

    def entries_after(self, after: int, limit: int | None = None) -> Iterator[Entry]:
        """Stored entries with seq > after, in order (all of them, or at most `limit`)."""
        for row in self.entry_rows_after(after, limit):
            yield entry_from_row(row)

    def entry_rows_after(self, after: int, limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The stored rows of entries with seq > after, in order, as stored (unchecked)."""
        remaining = limit
        while remaining is None or remaining > 0:
            page = PAGE if remaining is None else min(PAGE, remaining)
            # A window of positions first: the server reads only the page (entries_window). Short, it is the
            # journal's end or a missing position: read again as stored, past any gap, as verify must see it.
            rows = self.graph.run("entries_window", {"after": after, "limit": page})
            if len(rows) < page:
                rows = self.graph.run("entries_page", {"after": after, "limit": page})
            yield from rows
            if len(rows) < page:
                return
            after = rows[-1]["seq"]
            if remaining is not None:
                remaining -= len(rows)

    def keeps_at_least(self, version: int) -> bool:
        """Has the graph kept, since the store's first entry, what version `version` of
        projection.KEPT_FOR_WRITES keeps (as its head said at open)?"""
        return isinstance(self.keeps, int) and self.keeps >= version

    def stored_head(self) -> dict[str, Any]:
        rows = self.graph.run("head_read")
        return rows[0]

    def stored_length(self) -> int | None:
        """The journal's length as stored (None for a store without a journal yet)."""
        heads = self.graph.run("head_read")
        return heads[0]["seq"] if heads and isinstance(heads[0].get("seq"), int) else None

    @property
    def projected(self) -> int:
        """The last position whose projection this process knows the graph holds (with every one before it)."""
        return self._projected

    @property
    def graph_holds(self) -> int:
        """The last position whose projection the graph holds (with every one before it), as far as this process
        knows: what it projected, or what the head said when it last read it (entries another writer projected,
        which a catch-up then applies)."""
        return max(self._projected, self._head_projected)

    # --- writing --------------------------------------------------------------------------

    def catch_up(self) -> None:
        """Apply (and project, where the graph is behind) every entry other writers appended.

        If the graph lacks the projection of an entry this process already applied (a projection
        statement failed, here or in a writer that died), the state is replayed from the journal,
        which re-derives and writes every missing projection in order.
        """
        with self._lock:
            head = self.stored_head()
            self._projected = max(self._projected, min(head["projected"], self.seq))
            self._head_projected = max(self._head_projected, head["projected"])
            # Behind only by the projection a write of this process has on its way: not missing, so no
            # replay (which would rebuild the whole state, here, on a read's path).
            in_flight = self._projecting == self.seq == self._projected + 1
            if self._projected < self.seq and not in_flight and not self._project_kept():
                self._replay_all()
                return
            if head["seq"] == self.seq or self.broken is not None:
                return
            audit = JournalAudit(after=self.seq, prev=self.hash, frontier=self.frontier, clock=self.store_clock)
            for row in self.entry_rows_after(self.seq):
                entry = audit.feed(row)
                if entry is None:
                    self.broken = audit.finding
                    log.error("journal chain broken at %s: %s", self.broken.position, self.broken.reason)
                    return
                self._apply_and_project(entry)

    def _apply_and_project(self, entry: Entry) -> None:
        self._project(entry.seq, self._apply_next(entry))

    def _apply_next(self, entry: Entry, promised_empty: bool = False) -> Applied:
        """Apply the entry that follows the state's head, keeping its result for the writer that waits on it."""
        self.seq, self.hash = entry.seq, entry.hash
        applied = self._apply(entry)
        if promised_empty and (applied.projection.nodes or applied.projection.edges):
            # The append already moved the projected position past it: a programming error in a planner.
            raise RuntimeError(f"journal entry {entry.seq} ({entry.op}) was planned as changing nothing in the "
                               "graph but its projection writes nodes or edges")
        if entry.seq in self._awaited:  # applied by a catch-up while its own writer's append was on its way
            self._pending_results[entry.seq] = applied.result
        if entry.seq > self._projected:  # kept until the graph holds it, whatever becomes of its statement
            self.unprojected.keep(entry.seq, applied.projection)
        return applied

    def _apply(self, entry: Entry) -> Applied:
        self.store_clock = clock_after(self.store_clock, entry.op, entry.payload)
        for domain in self.domains:
            if domain.handles(entry.op):
                return domain.apply(entry)
        raise RuntimeError(f"journal entry {entry.seq} has an operation no domain applies: {entry.op!r}")

    def _project(self, seq: int, applied: Applied) -> None:
        """Write the entry's projection once the graph holds every one before it.

        The entry is already durable: a failure here is logged, not raised, and the next catch-up
        re-derives the projection (the write-ahead design's recovery, SPEC 3.3).
        """
        if seq <= self._projected:
            return  # the graph already holds it (start-up, or another writer projected it)
        if self._projected < seq - 1:
            return  # an earlier projection is missing: catch-up projects them in order
        try:
            self._write_projections([(seq, applied.projection)])
        except Exception:  # any backend failure: the journal stays the truth, the graph catches up
            log.exception("projection of journal entry %s failed; the next catch-up repairs it", seq)

    def _write_projections(self, projections: list[tuple[int, Projection]]) -> bool:
        """Write these consecutive entries' projections in one statement guarded by the projected position;
        True once the graph holds them (written now, or by another writer a moment before). Raises what the
        backend raises."""
        last = projections[-1][0]
        if self.graph.run(*projection_statement(projections)) or self.stored_head()["projected"] >= last:
            self._projected_through(last)
            return True
        return False

    def _projected_through(self, seq: int) -> None:
        """The graph holds every projection up to `seq`: none of those is kept any longer."""
        self._projected = max(self._projected, seq)
        self.unprojected.drop_through(self._projected)

    def _project_kept(self) -> bool:
        """Write the projections the graph lacks, from `_projected` + 1 to the state's head, from those this
        process kept, in one statement guarded by the projected position. False when some were never kept here
        or the guard refused (the graph moved otherwise): those are left to a replay. A failed statement is
        logged and the next catch-up tries again, as a replay's own projections would be (reads read the graph
        at the position it holds)."""
        self._projected_through(self._projected)
        missing = range(self._projected + 1, self.seq + 1)
        kept = self.unprojected.every_one_of(missing)
        if kept is None:
            return False
        try:
            return self._write_projections(kept)
        except Exception:  # any backend failure: the projections stay kept for the next catch-up
            log.exception("projection of journal entries %s..%s failed again", missing.start, self.seq)
            return True

    def write(self, by: str, plan: Callable[[], Draft], once: WriteOnce | None = None,
              role: str | None = None) -> WriteResult:
        """Plan against the current state, append one entry and apply it; retried when another writer won.

        `plan` raises UserError for bad input; then nothing is written. `once`: the request's
        Idempotency-Key; a key already stored writes nothing (AlreadyWritten, or KeyReused when it came
        with another request), and one key covers one write. `role`: the role `by` authenticated with,
        recorded in the hashed entry as the payload's `AUTHOR_KEY` (the domains never read it).
        Runs `write_steps` with its round trips in line, holding the lock throughout.
        """
        with self._lock:
            return run_steps(self.write_steps(by, plan, once, role))

    def write_steps(self, by: str, plan: Callable[[], Draft], once: WriteOnce | None = None,
                    role: str | None = None, *, plan_off_loop: bool = False) -> Generator[Step, Any, WriteResult]:
        """`write` as its round trips: each step yielded talks to the graph and touches no domain state
        (only the journal's projected-position marker), and its value must be sent back, or its exception
        thrown back; what lies between the steps plans against or applies to the in-memory state, under
        the lock. So an async caller can run the steps in a worker thread and keep its event loop serving
        meanwhile; it must drive one write at a time. The generator's value is the WriteResult; it raises
        what `write` raises. `plan_off_loop`: the plan reads only the graph (as of the journal's position, which
        it reads itself), so it runs as a step too, and is made again if entries were applied meanwhile.

        A domain that reads the graph to apply an entry reads it in a step of its own once the append landed
        (`prepares(entry)` says whether it does, `prepare(entry)` reads it), so that too is off the loop."""
        if not isinstance(by, str) or not by.strip():
            raise UserError("by must name who writes", field="by")
        if once is not None and once.written is not None:
            raise UserError("an Idempotency-Key covers one write, and this request makes more than one",
                            field="Idempotency-Key")
        # Optimistic: the first attempt plans on the state as this process last saw it, without
        # reading the head (a round trip per write); the append's compare-and-set catches another
        # writer's entry, and then the state catches up and the plan runs again.
        current = False
        for _ in range(MAX_APPEND_ATTEMPTS):
            with self._lock:
                if current or self._projected < self.seq or self.broken is not None:
                    self.catch_up()
                    current = True
                self.refuse_if_broken()
            if once is not None:
                once.check_stored((yield partial(self.stored_once, once.key)))
            planned: Draft | None = None
            if plan_off_loop:  # it reads only the graph, as of this position: a step, in a worker thread
                planned_at = self.seq
                try:
                    planned = yield partial(plan)
                except UserError:
                    if not self._refused_when_stale(current):
                        raise
                    current = True
                    continue
            with self._lock:
                if plan_off_loop and self.seq != planned_at:
                    current = True  # entries were applied while it planned: plan again on them
                    continue
                try:
                    draft = plan() if planned is None else planned
                except UserError:
                    if not self._refused_when_stale(current):
                        raise
                    current = True
                    continue
                if role is not None:
                    draft = Draft(draft.op, {**draft.payload, AUTHOR_KEY: {"role": role}}, draft.changes_graph)
                payload_text = storable_payload(draft.payload, by)
                if len(payload_text.encode()) > MAX_PAYLOAD_BYTES:
                    raise UserError(
                        f"payload is {len(payload_text.encode())} bytes; at most {MAX_PAYLOAD_BYTES} are accepted",
                        field="payload",
                    )
                entry = self._sealed(draft.op, by, draft.payload)
                clock = clock_after(self.store_clock, entry.op, entry.payload)
                empty = not draft.changes_graph
                self._awaited.add(entry.seq)
            try:
                landed = yield partial(self._append, entry, payload_text, clock, once, projected=empty)
                if not landed:
                    landed = yield partial(self._landed, entry)
                if not landed:
                    current = True  # another writer won this position: catch up before planning again
                    continue
                if any(getattr(d, "prepares", _never)(entry) for d in self.domains):
                    yield partial(self._prepare_apply, entry)  # what applying it reads of the graph, off the loop
                with self._lock:
                    applied = self._take_landed(entry, promised_empty=empty)
                    result = self._pending_results.pop(entry.seq) if applied is None else applied.result
                    # An entry whose append projected it too (one that changes no node: `empty`) needs no
                    # step of its own: a step is a worker thread's round trip for an async caller.
                    to_project = applied if applied is not None and entry.seq > self._projected else None
                    if to_project is not None:
                        self._projecting = entry.seq
            finally:
                with self._lock:
                    self._awaited.discard(entry.seq)
                    self._pending_results.pop(entry.seq, None)
            if to_project is not None:
                try:
                    yield partial(self._project, entry.seq, to_project)
                finally:
                    with self._lock:
                        self._projecting = None
            if once is not None:
                once.written = entry.seq
            return WriteResult(entry, result)
        raise RuntimeError(f"could not append after {MAX_APPEND_ATTEMPTS} attempts (heavy contention)")

    def _refused_when_stale(self, current: bool) -> bool:
        """A plan refused on a state that may be stale is final only once the state is current: catch up, and
        say whether to plan again (the catch-up applied something)."""
        if current:
            return False
        with self._lock:
            seen = self.seq
            self.catch_up()
            return self.seq != seen

    def _prepare_apply(self, entry: Entry) -> None:
        """Let the domains that read the graph to apply an entry read it now, off the event loop (`prepare`);
        never raises: what could not be prepared is read when the entry is applied."""
        for domain in self.domains:
            prepare = getattr(domain, "prepare", None)
            if prepare is not None:
                try:
                    prepare(entry)
                except Exception:  # the entry is durable: its application reads what it needs itself
                    log.debug("preparing journal entry %s failed; it is read as it is applied", entry.seq,
                              exc_info=True)

    def _take_landed(self, entry: Entry, *, promised_empty: bool) -> Applied | None:
        """Apply this process's own entry once its append landed, and return what to project; None when a
        catch-up already applied (and projected) it, which a read may do while the append is on its way."""
        if self.seq >= entry.seq:
            return None
        self.frontier.advance(entry.seq, [bytes.fromhex(h) for h in entry.tree])
        return self._apply_next(entry, promised_empty)

    def tree_head(self) -> tuple[int, bytes]:
        """(size, Merkle root) of the journal as stored now, from the entries' own bytes; JournalBroken
        while the chain is broken."""
        with self._lock:
            self.catch_up()
            self.refuse_if_broken()
            return self.seq, self.frontier.root()

    def clock_at(self, seq: int) -> int | None:
        """The store clock after the entry at `seq` when this journal's head is there (as applied here: no
        statement), else None."""
        with self._lock:
            return self.store_clock if self.seq == seq else None

    def refuse_if_broken(self) -> None:
        """JournalBroken, naming the position, while the stored chain is known to be broken."""
        if self.broken is not None:
            raise JournalBroken(f"the journal is broken at position {self.broken.position} "
                                f"({self.broken.reason}); writes are refused until it is repaired", field=None)

    def _sealed(self, op: str, by: str, payload: dict[str, Any]) -> Entry:
        """The entry that follows the current head, with its hash and its Merkle tree hashes."""
        try:
            entry, body_bytes = sealed_with_bytes(self.hash, self.seq + 1, op, by, self.clock(), payload)
        except EntryError as exc:
            raise UserError(exc.reason, field="payload") from None
        tree = self.frontier.tree_for(entry.seq, body_bytes)
        return replace(entry, tree=tuple(h.hex() for h in tree))

    @staticmethod
    def _stored(entry: Entry, payload_text: str, clock: int) -> dict[str, Any]:
        # `name` is Neo4j Browser's caption and `clock` the store clock after the entry; neither is part of
        # the entry (nor of its hash): the clock follows from the entries, and the audit checks it.
        return {"seq": entry.seq, "op": entry.op, "by": entry.by, "at": entry.at, "name": f"#{entry.seq} {entry.op}",
                "payload": payload_text, "prev": entry.prev, "hash": entry.hash, "tree": list(entry.tree),
                "clock": clock}

    def _landed(self, entry: Entry) -> bool:
        """Is this very entry stored at its position? A client library that re-sends a statement
        after a dropped connection gets "lost the race" for an append that had in fact landed;
        the hash (over position, author, time and payload) tells ours from another writer's."""
        rows = self.graph.run("entry_hash_at", {"seq": entry.seq})
        return bool(rows) and rows[0]["hash"] == entry.hash

    def stored_once(self, key: str) -> dict[str, Any] | None:
        """The entry an Idempotency-Key (as digested by WriteOnce) wrote: {seq, request, answer}, or None."""
        rows = self.graph.run("entry_by_idempotency_key", {"key": key})
        return rows[0] if rows else None

    def keep_answer(self, once: WriteOnce, answer: str) -> None:
        """Keep the answer the client got for a keyed write, so a retry gets the same answer."""
        if once.written is not None:
            self.graph.run("entry_keep_answer", {"seq": once.written, "key": once.key, "answer": answer})

    def _append(self, entry: Entry, payload_text: str, clock: int, once: WriteOnce | None = None, *,
                projected: bool = False) -> bool:
        """Append with compare-and-set (`clock`: the store clock after the entry); `projected`: the entry
        changes nothing in the graph, so the same statement moves the projected position past it (when the
        graph holds everything before it)."""
        stored = self._stored(entry, payload_text, clock)
        if once is not None:  # beside the entry, outside its hash: the same atomic append keeps it
            stored.update(idem=once.key, idem_request=once.request)
        query = "append_entry_projected" if projected else "append_entry"
        try:
            rows = self.graph.run(query, {"prev": entry.prev, "seq": entry.seq, "entry": stored})
        except ConstraintViolation:
            return False
        if rows and projected and rows[0].get("projected") == entry.seq:
            self._projected = entry.seq
        return bool(rows)

    # --- checking -------------------------------------------------------------------------

    def verify(self, *, on_entry: Callable[[Entry], None] | None = None,
               roots_at: Iterable[int] = (), audit: JournalAudit | None = None) -> VerifyReport:
        """Re-read every stored entry and check it before trusting it (JournalAudit): positions, fields,
        canonical form, Merkle hashes, links, PREV edges and hashes; then the head, the projected marker
        and Entry nodes outside the chain. Streams: `on_entry` sees each sound entry in order (a replay
        runs beside the check). `roots_at`: tree sizes whose root hash the report should carry.
        `audit`: one an earlier verify fed and found sound, to check on from where it stopped (the entries written
        since: verify's comparison, when writes land while it compares). Never raises for what the store holds;
        the first problem is `first_bad` and `reason`."""
        resumed = audit is not None
        audit = JournalAudit(roots_at=roots_at) if audit is None else audit
        count = 0
        self._feed(audit, self.entry_rows_after(audit.last_seq), on_entry)
        if audit.finding is not None:
            head = head_row(self.graph)
        else:
            # Writes go on while the pages are read (verify runs beside the service): the head and the count of Entry
            # nodes are compared with the chain only as read while no write landed (journal.settled), and the
            # entries up to that head the pages did not reach (appended meanwhile) are read then, none past it.
            settled = read_settled(self.graph, lambda: self.graph.run("entry_count")[0]["entries"])
            head, count = settled.head, settled.value
            head_seq = head.get("seq") if head is not None else None
            if isinstance(head_seq, int) and head_seq > audit.last_seq:
                self._feed(audit, self.entry_rows_after(audit.last_seq, head_seq - audit.last_seq), on_entry)
        # A resumed audit's store was searched for Entry nodes off any position already (a read of every entry).
        audit.finish(head, count, [] if resumed else self.graph.run("entries_off_position"))
        head_seq = head.get("seq") if head is not None and isinstance(head.get("seq"), int) else audit.last_seq
        found = audit.finding
        report = (VerifyReport(True, audit.checked, head_seq, roots=audit.roots) if found is None else
                  VerifyReport(False, audit.checked, head_seq, found.position, found.reason, roots=audit.roots))
        self.take_verdict(report)
        return report

    @staticmethod
    def _feed(audit: JournalAudit, rows: Iterable[dict[str, Any]], on_entry: Callable[[Entry], None] | None) -> None:
        """Feed stored rows to the audit until it finds a problem, each sound entry to `on_entry`."""
        for row in rows:
            entry = audit.feed(row)
            if entry is None:
                return
            if on_entry is not None:
                on_entry(entry)

    def settled_seq(self) -> int | None:
        """The head's position, read while no write is landing (journal.settled); None without a head."""
        return read_settled(self.graph, lambda: None).seq

    def take_verdict(self, report: VerifyReport) -> None:
        """What a check of the stored chain (here or in another process) means for writing: a broken chain
        refuses writes from its first bad position; a repaired one is replayed whole and writable again."""
        if not report.ok:
            self.broken = Finding(report.first_bad if report.first_bad is not None else report.checked + 1,
                                  report.reason or "the chain does not verify")
            return
        if self.broken is not None:  # repaired since: the state must be the whole journal's again
            with self._lock:
                self.broken = None
                self.audit = None  # what a background check found before the repair no longer holds
                self._replay_all()
