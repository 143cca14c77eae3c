"""Bulk loads into the journal: plans, or exported entries, applied here and appended and projected a batch at a time.

Mixed into Journal (graph_service.journal.store), whose position, chain and domains a load moves on exactly as
single writes do; kept apart because a load's pipeline (a batch in flight in a worker thread while the next is
applied here, and what it undoes when one fails) is its own concern.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from itertools import islice
from typing import TYPE_CHECKING, Any

from graph_service.domain import Applied, Domain, Draft, no_hint
from graph_service.errors import Conflict, UserError
from graph_service.journal.chain import (
    FORMAT,
    GENESIS,
    MAX_PAYLOAD_BYTES,
    Entry,
    chained_hash,
    legacy_entry_hash,
    sealed_with_bytes,
)
from graph_service.journal.frontier import Frontier
from graph_service.journal.kept_projections import KeptProjections
from graph_service.journal.payloads import storable_payload
from graph_service.projection import Projection
from graph_service.storage.port import GraphPort
from graph_service.tlog.verifier import EntryError, canonical_bytes

log = logging.getLogger(__name__)

# Entries a load of exported entries announces at a time to the domains that read the graph as they apply them
# (StoreState.read_ahead), so those reads cost a statement a window, not one an entry.
READ_AHEAD = 64



def _failure_of(pending: Future[int] | None) -> BaseException | None:
    """What a batch append in flight raised, once it is done (None: none in flight, or it landed)."""
    if pending is None:
        return None
    try:
        pending.result()
    except Exception as failed:
        return failed
    return None


class BulkLoad:
    """`write_batch` and `import_entries`, for Journal: the state below is the journal's own."""

    graph: GraphPort
    domains: list[Domain]
    clock: Callable[[], int]
    seq: int
    hash: str
    store_clock: int
    frontier: Frontier
    unprojected: KeptProjections
    _lock: threading.RLock
    _projected: int

    if TYPE_CHECKING:  # Journal's, used here as its single writes use them
        def catch_up(self) -> None: ...
        def refuse_if_broken(self) -> None: ...
        def _apply(self, entry: Entry) -> Applied: ...
        def _replay_all(self) -> None: ...
        def _write_projections(self, projections: list[tuple[int, Projection]]) -> bool: ...
        @staticmethod
        def _stored(entry: Entry, payload_text: str, clock: int) -> dict[str, Any]: ...

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
                getattr(domain, "read_ahead", no_hint)(window)
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
                self.unprojected.keep(entry.seq, projection)
        return len(batch)
