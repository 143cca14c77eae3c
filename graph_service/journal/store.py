"""The journal on a graph: append with compare-and-set, then project, and catch up after a crash.

Design (SPEC 3.3, the write-ahead variant): a write is (1) planned against the in-memory state,
(2) appended as one `Entry` node by a single atomic statement guarded by the head's hash
(`append_entry`), then (3) applied to the pure in-memory domains and its graph changes written
by a single atomic statement guarded by the head's projected position (`project_entries`).
Why this design: the in-memory state only ever applies committed entries, in journal order, so a
writer that loses a race has nothing to undo — it catches up and plans again; and a crash
between (2) and (3) leaves an entry that the next reader or start-up projects (the projection is
a pure function of the journal prefix, so whoever applies it writes the same thing).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graph_service.domain import Applied, Domain, Draft
from graph_service.errors import Conflict, UserError
from graph_service.journal.chain import (
    GENESIS,
    MAX_PAYLOAD_BYTES,
    ChainReport,
    Entry,
    canonical_json,
    entry_hash,
    seal,
    verify_chain,
)
from graph_service.projection import Projection, statement_params
from graph_service.storage.port import ConstraintViolation, GraphPort

log = logging.getLogger(__name__)

PAGE = 2_000
MAX_APPEND_ATTEMPTS = 1_000


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


INT64 = (-(2**63), 2**63 - 1)


def _unstorable(value: Any, path: str) -> str | None:
    """Why a payload value cannot be stored and read back as it is, or None (depth-first)."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return None
    if isinstance(value, int):
        # Both backends hold 64-bit integers; FalkorDB silently saturates anything larger.
        return None if INT64[0] <= value <= INT64[1] else f"{path}: {value} is outside the 64-bit integer range"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{path}: the text holds an unpaired surrogate, which is not UTF-8"
        return None
    if isinstance(value, dict):
        children = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        children = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return f"{path}: {type(value).__name__} is not plain JSON"
    return next((why for p, v in children if (why := _unstorable(v, p))), None)


def storable_payload(payload: dict[str, Any], by: str) -> str:
    """The payload's canonical JSON, once every value is one both backends store as it is.

    UserError names the first value that is not: an integer beyond 64 bits, text that is not
    UTF-8; and a NUL in `by`, which FalkorDB cuts a query at (JSON escapes it in the payload).
    """
    if "\x00" in by or _unstorable(by, "by"):
        raise UserError("by must be UTF-8 text without the NUL character (U+0000)", field="by")
    why = _unstorable(payload, "payload")
    if why:
        raise UserError(why, field=why.split(":")[0])
    return canonical_json(payload)


def entry_from_row(row: dict[str, Any]) -> Entry:
    """An Entry from its stored properties (the payload is stored as canonical JSON text)."""
    return Entry(
        seq=row["seq"], op=row["op"], by=row["by"], at=row["at"],
        payload=json.loads(row["payload"]), prev=row["prev"], hash=row["hash"],
    )


class Journal:
    """A journal kept in a graph, with the pure domains it feeds and projects."""

    def __init__(self, graph: GraphPort, domains: Sequence[Domain], *, clock: Callable[[], int] = now_ms) -> None:
        self.graph = graph
        self.domains = list(domains)
        self.clock = clock
        self.seq = 0
        self.hash = GENESIS
        self.startup_report: ChainReport | None = None
        self._lock = threading.RLock()
        self._pending_results: dict[int, Any] = {}
        # The last position this process projected or saw projected; below self.seq only after a
        # projection failed, when catch-up re-derives the missing projections from the journal.
        self._projected = 0

    # --- start-up -------------------------------------------------------------------------

    def open(self) -> Journal:
        """Set up the schema, create the head if new, replay the journal and project what is behind."""
        self.graph.setup_schema()
        self.graph.run("head_init", {"genesis": GENESIS})
        with self._lock:
            self._replay_all()
            if self.startup_report is not None and not self.startup_report.ok:
                log.error("journal chain broken at %s: %s", self.startup_report.first_bad, self.startup_report.reason)
            self.catch_up()
        return self

    def _replay_all(self) -> None:
        """Rebuild the in-memory state from every stored entry, projecting those the graph lacks."""
        self._reset_domains()
        self.seq, self.hash = 0, GENESIS
        self._projected = self.stored_head()["projected"]
        self.startup_report = verify_chain(self._replay_checked())

    def _replay_checked(self) -> Iterator[Entry]:
        # Yields every stored entry to the chain check while applying it to the domains.
        for entry in self.entries_after(0):
            self._apply_and_project(entry)
            yield entry

    def _reset_domains(self) -> None:
        for domain in self.domains:
            reset = getattr(domain, "reset", None)
            if reset is None:
                raise RuntimeError(f"{type(domain).__name__} cannot be reset for a replay")
            reset()

    # --- reading --------------------------------------------------------------------------

    def entries_after(self, after: int, limit: int | None = None) -> Iterator[Entry]:
        """Stored entries with seq > after, in order (all of them, or at most `limit`)."""
        remaining = limit
        while remaining is None or remaining > 0:
            page = PAGE if remaining is None else min(PAGE, remaining)
            rows = self.graph.run("entries_page", {"after": after, "limit": page})
            for row in rows:
                yield entry_from_row(row)
            if len(rows) < page:
                return
            after = rows[-1]["seq"]
            if remaining is not None:
                remaining -= len(rows)

    def stored_head(self) -> dict[str, Any]:
        rows = self.graph.run("head_read")
        return rows[0]

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
            if self._projected < self.seq:
                self._replay_all()
                return
            if head["seq"] == self.seq:
                return
            for entry in self.entries_after(self.seq):
                self._apply_and_project(entry)

    def _apply_and_project(self, entry: Entry) -> None:
        self.seq, self.hash = entry.seq, entry.hash
        applied = self._apply(entry)
        self._pending_results[entry.seq] = applied.result
        if len(self._pending_results) > 64:  # results are for the writer that waits on them
            self._pending_results.pop(min(self._pending_results))
        self._project(entry.seq, applied)

    def _apply(self, entry: Entry) -> Applied:
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
            return  # an earlier projection is missing: catch-up replays and projects in order
        try:
            rows = self.graph.run("project_entries", statement_params([(seq, applied.projection)]))
        except Exception:  # any backend failure: the journal stays the truth, the graph catches up
            log.exception("projection of journal entry %s failed; the next catch-up repairs it", seq)
            return
        if rows or self.stored_head()["projected"] >= seq:
            self._projected = seq  # written now, or by another writer a moment before

    def write(self, by: str, plan: Callable[[], Draft]) -> WriteResult:
        """Plan against the current state, append one entry and apply it; retried when another writer won.

        `plan` raises UserError for bad input; then nothing is written.
        """
        if not isinstance(by, str) or not by.strip():
            raise UserError("by must name who writes", field="by")
        with self._lock:
            for _ in range(MAX_APPEND_ATTEMPTS):
                self.catch_up()
                draft = plan()
                payload_text = storable_payload(draft.payload, by)
                if len(payload_text.encode()) > MAX_PAYLOAD_BYTES:
                    raise UserError(
                        f"payload is {len(payload_text.encode())} bytes; at most {MAX_PAYLOAD_BYTES} are accepted",
                        field="payload",
                    )
                entry = seal(self.hash, self.seq + 1, draft.op, by, self.clock(), draft.payload)
                if self._append(entry, payload_text) or self._landed(entry):
                    self._apply_and_project(entry)
                    return WriteResult(entry, self._pending_results.pop(entry.seq))
            raise RuntimeError(f"could not append after {MAX_APPEND_ATTEMPTS} attempts (heavy contention)")

    def write_batch(self, by: str, plans: Iterable[Callable[[], Draft]], batch_size: int = 500) -> int:
        """Bulk load: plan and apply each in memory, then append and project whole batches at once.

        Each plan sees the state with the ones before it applied. Meant for loading into a store no
        other writer uses at the time: if another writer appends meanwhile, the in-memory state is
        rebuilt from the journal and Conflict is raised (the batches appended before it stay).
        Returns the number of entries written.
        """

        def sealed() -> Iterator[Entry]:
            for plan in plans:
                draft = plan()
                yield seal(self.hash, self.seq + 1, draft.op, by, self.clock(), draft.payload)

        return self._load(sealed(), batch_size)

    def import_entries(self, entries: Iterable[Entry], batch_size: int = 500) -> int:
        """Append exported entries verbatim (same positions, times and hashes), in batches.

        Each must continue the chain exactly where the store's journal ends; the first one that
        does not raises UserError naming its position (the batches before it stay written).
        """

        def checked() -> Iterator[Entry]:
            for entry in entries:
                if entry.seq != self.seq + 1 or entry.prev != self.hash:
                    raise UserError(f"entry {entry.seq} does not continue the journal at position {self.seq + 1}",
                                    field="entries")
                if entry_hash(entry.prev, entry.body()) != entry.hash:
                    raise UserError(f"entry {entry.seq}: content does not match its hash", field="entries")
                yield entry

        return self._load(checked(), batch_size)

    def _load(self, entries: Iterator[Entry], batch_size: int) -> int:
        written = 0
        with self._lock:
            self.catch_up()
            batch: list[tuple[Entry, str, Projection]] = []
            try:
                for entry in entries:
                    payload_text = storable_payload(entry.payload, entry.by)
                    if len(payload_text.encode()) > MAX_PAYLOAD_BYTES:
                        raise UserError(f"entry {entry.seq}: payload over {MAX_PAYLOAD_BYTES} bytes", field="payload")
                    applied = self._apply(entry)
                    self.seq, self.hash = entry.seq, entry.hash
                    batch.append((entry, payload_text, applied.projection))
                    if len(batch) >= batch_size:
                        written += self._flush(batch)
                        batch = []
            except Exception:
                if batch:
                    self._replay_all()  # the unwritten part of the batch was applied in memory only
                raise
            if batch:
                written += self._flush(batch)
        return written

    def _flush(self, batch: list[tuple[Entry, str, Projection]]) -> int:
        first = batch[0][0]
        stored = [self._stored(entry, text) for entry, text, _ in batch]
        rows = self.graph.run("append_entries", {
            "prev": first.prev, "first": first.seq, "entries": stored,
            "last": batch[-1][0].seq, "last_hash": batch[-1][0].hash,
        })
        if not rows or rows[0]["appended"] != len(batch):
            self._replay_all()
            raise Conflict("another writer appended during the bulk load; nothing of this batch was written")
        # statement_params folds a node written by several entries into one upsert.
        if self._projected == first.seq - 1:
            try:
                if self.graph.run("project_entries", statement_params([(entry.seq, p) for entry, _, p in batch])):
                    self._projected = batch[-1][0].seq
            except Exception:  # the entries are durable: the next catch-up re-derives their projection
                log.exception("projection of journal entries %s..%s failed", first.seq, batch[-1][0].seq)
        return len(batch)

    @staticmethod
    def _stored(entry: Entry, payload_text: str) -> dict[str, Any]:
        return {"seq": entry.seq, "op": entry.op, "by": entry.by, "at": entry.at,
                "payload": payload_text, "prev": entry.prev, "hash": entry.hash}

    def _landed(self, entry: Entry) -> bool:
        """Is this very entry stored at its position? A client library that re-sends a statement
        after a dropped connection gets "lost the race" for an append that had in fact landed;
        the hash (over position, author, time and payload) tells ours from another writer's."""
        rows = self.graph.run("entry_hash_at", {"seq": entry.seq})
        return bool(rows) and rows[0]["hash"] == entry.hash

    def _append(self, entry: Entry, payload_text: str) -> bool:
        try:
            rows = self.graph.run("append_entry", {"prev": entry.prev, "seq": entry.seq,
                                                   "entry": self._stored(entry, payload_text)})
        except ConstraintViolation:
            return False
        return bool(rows)

    # --- checking -------------------------------------------------------------------------

    def verify(self, entries: Sequence[Entry] | None = None) -> VerifyReport:
        """Every stored entry (re-read, unless the caller just read them): positions consecutive,
        links and hashes whole, the head at the end."""
        head = self.stored_head()
        entries = list(self.entries_after(0)) if entries is None else entries
        report = verify_chain(entries)
        if not report.ok:
            return VerifyReport(False, report.checked, head["seq"], report.first_bad, report.reason)
        last_seq, last_hash = (entries[-1].seq, entries[-1].hash) if entries else (0, GENESIS)
        if (head["seq"], head["hash"]) != (last_seq, last_hash):
            return VerifyReport(False, report.checked, head["seq"], last_seq + 1,
                                f"head names position {head['seq']} but the chain ends at {last_seq}")
        return VerifyReport(True, report.checked, head["seq"])
