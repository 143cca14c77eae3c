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
"""

from __future__ import annotations

import gc
import logging
import secrets
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import islice
from typing import Any

from graph_service.domain import Applied, Domain, Draft
from graph_service.errors import Conflict, JournalBroken, StoreFormatError, UserError
from graph_service.journal.audit import Finding, JournalAudit
from graph_service.journal.background_audit import BackgroundAudit
from graph_service.journal.chain import (
    FORMAT,
    GENESIS,
    MAX_PAYLOAD_BYTES,
    Entry,
    chained_hash,
    legacy_entry_hash,
    sealed_with_bytes,
)
from graph_service.journal.clock import clock_after
from graph_service.journal.frontier import Frontier, frontier_positions
from graph_service.journal.once import WriteOnce
from graph_service.journal.payloads import entry_from_row, storable_payload
from graph_service.journal.settled import head_row, read_settled
from graph_service.journal.steps import Step, run_steps
from graph_service.projection import KEPT_FOR_WRITES, Projection, projection_statement
from graph_service.storage.port import ConstraintViolation, GraphPort
from graph_service.tlog.verifier import EntryError, canonical_bytes

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
# Entries a load of exported entries announces at a time to the domains that read the graph as they apply them
# (StoreState.read_ahead), so those reads cost a statement a window, not one an entry.
READ_AHEAD = 64
MAX_KEPT_PROJECTIONS = 10_000  # projections kept for a catch-up to write in one statement (Journal._unprojected)

def _failure_of(pending: Future[int] | None) -> BaseException | None:
    """What a batch append in flight raised, once it is done (None: none in flight, or it landed)."""
    if pending is None:
        return None
    try:
        pending.result()
    except Exception as failed:
        return failed
    return None


def _ignore(*_hint: object) -> None:
    # What a domain without a hint's method does with it (`read_ahead`, `graph_holds_upto`).
    return None


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


class Journal:
    """A journal kept in a graph, with the pure domains it feeds and projects."""

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
        # statement failed, or one before it is missing): a catch-up writes these in order, in one guarded
        # statement, where it used to replay the whole journal to derive them again.
        self._unprojected: dict[int, Projection] = {}
        self._unprojected_lock = threading.Lock()  # a write's projection step prunes it from a worker thread
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
        with self._unprojected_lock:
            self._unprojected.clear()
        projected = self.stored_head()["projected"]
        self._projected = self._head_projected = projected
        self.seq, self.hash, self.store_clock, self.frontier = self.stored_position(
            projected if self.stateless else 0)
        for domain in self.domains:
            getattr(domain, "resume_at", _ignore)(self.seq)
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
            getattr(domain, "graph_holds_upto", _ignore)(seq)

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
            self._keep_unprojected(entry.seq, applied.projection)
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

    def _keep_unprojected(self, seq: int, projection: Projection) -> None:
        # Bounded: past MAX_KEPT_PROJECTIONS (a backend refusing projections for that long) the gap is left to
        # a replay, which derives them again, rather than held in memory.
        with self._unprojected_lock:
            if len(self._unprojected) < MAX_KEPT_PROJECTIONS:
                self._unprojected[seq] = projection

    def _projected_through(self, seq: int) -> None:
        """The graph holds every projection up to `seq`: none of those is kept any longer."""
        self._projected = max(self._projected, seq)
        with self._unprojected_lock:
            for kept in [s for s in self._unprojected if s <= self._projected]:
                del self._unprojected[kept]

    def _project_kept(self) -> bool:
        """Write the projections the graph lacks, from `_projected` + 1 to the state's head, from those this
        process kept, in one statement guarded by the projected position. False when some were never kept here
        or the guard refused (the graph moved otherwise): those are left to a replay. A failed statement is
        logged and the next catch-up tries again, as a replay's own projections would be (reads read the graph
        at the position it holds)."""
        self._projected_through(self._projected)
        missing = range(self._projected + 1, self.seq + 1)
        with self._unprojected_lock:
            kept = [(seq, self._unprojected[seq]) for seq in missing if seq in self._unprojected]
        if len(kept) != len(missing):
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

    def write_batch(self, by: str, plans: Iterable[Callable[[], Draft]], batch_size: int = 500) -> int:
        """Bulk load: plan and apply each in memory, then append and project whole batches at once.

        Each plan sees the state with the ones before it applied. Meant for loading into a store no
        other writer uses at the time: if another writer appends meanwhile, the in-memory state is
        rebuilt from the journal and Conflict is raised (the batches appended before it stay).
        Returns the number of entries written.
        """

        def sealed() -> Iterator[tuple[Entry, bytes]]:
            for plan in plans:
                draft = plan()
                try:
                    yield sealed_with_bytes(self.hash, self.seq + 1, draft.op, by, self.clock(), draft.payload)
                except EntryError as exc:
                    raise UserError(f"entry {self.seq + 1}: {exc.reason}", field="payload") from None

        return self._load(sealed(), batch_size)

    def import_entries(self, entries: Iterable[Entry], batch_size: int = 500, *, from_format: int = FORMAT) -> int:
        """Append exported entries verbatim (same positions, times and hashes), in batches.

        Each must continue the chain exactly where the store's journal ends; the first one that
        does not raises UserError naming its position (the batches before it stay written).
        `from_format=1`: the entries are a format-1 export, checked against their format-1 hashes and
        re-sealed unchanged (position, operation, author, time, payload) in the current format.
        """
        if from_format not in (1, FORMAT):
            raise UserError(f"from_format must be 1 or {FORMAT}, got {from_format}", field="from_format")
        legacy_prev = GENESIS

        def checked() -> Iterator[tuple[Entry, bytes]]:
            nonlocal legacy_prev
            for entry in self._announced(entries):
                expected_prev = legacy_prev if from_format == 1 else self.hash
                if entry.seq != self.seq + 1 or entry.prev != expected_prev:
                    raise UserError(f"entry {entry.seq} does not continue the journal at position {self.seq + 1}",
                                    field="entries")
                try:
                    if from_format == 1:
                        sound = legacy_entry_hash(entry.prev, entry.body()) == entry.hash
                    else:
                        body_bytes = canonical_bytes(entry.body())
                        sound = chained_hash(entry.prev, body_bytes) == entry.hash
                except EntryError as exc:
                    raise UserError(f"entry {entry.seq}: {exc.reason}", field="entries") from None
                if not sound:
                    raise UserError(f"entry {entry.seq}: content does not match its hash", field="entries")
                if from_format == 1:
                    legacy_prev = entry.hash
                    try:
                        entry, body_bytes = sealed_with_bytes(self.hash, entry.seq, entry.op, entry.by, entry.at,
                                                              entry.payload)
                    except EntryError as exc:
                        raise UserError(f"entry {entry.seq}: {exc.reason}", field="entries") from None
                yield entry, body_bytes

        return self._load(checked(), batch_size)

    def _announced(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        """The entries, each READ_AHEAD of them announced to the domains (`read_ahead`) as the first of them is
        asked for: once every entry before them is applied, so what is read ahead is what they will read."""
        pending = iter(entries)
        while window := list(islice(pending, READ_AHEAD)):
            for domain in self.domains:
                getattr(domain, "read_ahead", _ignore)(window)
            yield from window

    def _load(self, entries: Iterator[tuple[Entry, bytes]], batch_size: int) -> int:
        """Apply and append sealed entries, each with its body's RFC 8785 bytes, in batches.

        A batch is appended and projected in a worker thread while the next one is planned and applied
        here, so the server's work and ours overlap; one batch is in flight at a time, in order. If a
        batch fails to land, or an entry is refused, the in-memory state is rebuilt from the journal (it
        had applied entries the graph does not hold) and the failure that came first is raised."""
        written = 0
        with self._lock, ThreadPoolExecutor(max_workers=1, thread_name_prefix="bulk-append") as appender:
            self.catch_up()
            durable = self.seq  # the last position the graph is known to hold
            batch: list[tuple[Entry, str, int, Projection]] = []
            in_flight: Future[int] | None = None
            in_flight_upto = durable
            try:
                self.refuse_if_broken()
                for entry, body_bytes in entries:
                    payload_text = storable_payload(entry.payload, entry.by)
                    if len(payload_text.encode()) > MAX_PAYLOAD_BYTES:
                        raise UserError(f"entry {entry.seq}: payload over {MAX_PAYLOAD_BYTES} bytes", field="payload")
                    tree = self.frontier.tree_for(entry.seq, body_bytes)
                    entry = replace(entry, tree=tuple(h.hex() for h in tree))
                    applied = self._apply(entry)
                    self.frontier.advance(entry.seq, tree)
                    self.seq, self.hash = entry.seq, entry.hash
                    batch.append((entry, payload_text, self.store_clock, applied.projection))
                    if len(batch) >= batch_size:
                        if in_flight is not None:
                            written += in_flight.result()
                            durable = self.seq - len(batch)
                        in_flight, in_flight_upto = appender.submit(self._flush, batch), self.seq
                        batch = []
                if in_flight is not None:
                    written += in_flight.result()
                    durable, in_flight = self.seq - len(batch), None
                if batch:
                    written += self._flush(batch)
                    durable = self.seq
            except Exception as refused:
                failed = _failure_of(in_flight)
                if in_flight is not None and failed is None:
                    durable = in_flight_upto
                if self.seq > durable:
                    self._replay_all()  # entries applied in memory that the graph may not hold
                if failed is not None and failed is not refused:
                    # The batch before the refused entry did not land either: that came first. (`refused`
                    # stays in the traceback as the exception being handled.)
                    raise failed  # noqa: B904 (the implicit context is the truth: refused while it failed)
                raise
        return written

    def _flush(self, batch: list[tuple[Entry, str, int, Projection]]) -> int:
        """Append a batch with compare-and-set and project it (only the graph is touched: it runs in a
        worker thread); Conflict when another writer appended first, and then nothing of it is written."""
        first = batch[0][0]
        stored = [self._stored(entry, text, clock) for entry, text, clock, _ in batch]
        rows = self.graph.run("append_entries", {
            "prev": first.prev, "first": first.seq, "entries": stored,
            "last": batch[-1][0].seq, "last_hash": batch[-1][0].hash,
        })
        if not rows or rows[0]["appended"] != len(batch):
            raise Conflict("another writer appended during the bulk load; nothing of this batch was written")
        # projection_statement folds a node written by several entries into one upsert.
        if self._projected == first.seq - 1:
            try:
                self._write_projections([(entry.seq, p) for entry, _, _, p in batch])
            except Exception:  # the entries are durable: the next catch-up writes their projection
                log.exception("projection of journal entries %s..%s failed", first.seq, batch[-1][0].seq)
        if self._projected < batch[-1][0].seq:
            for entry, _, _, projection in batch:
                self._keep_unprojected(entry.seq, projection)
        return len(batch)

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
