"""Check a stored journal before trusting any of it: pure, over the rows the store returns, in order.

Every row is checked in this order: its position (an integer, the next one), the shape of every
field, the RFC 8785 form of its body, the link to its predecessor (`prev`), its own hash, the Merkle
tree hashes stored with it, its PREV edge and the store clock stored with it; then the head, the
projected marker and Entry nodes the ordered pages cannot see. The first problem is reported as a position
and a reason, never as an exception, whatever the rows hold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graph_service.journal.chain import FORMAT, GENESIS, Entry, chained_hash
from graph_service.journal.clock import clock_after
from graph_service.journal.frontier import Frontier
from graph_service.tlog.verifier import EntryError, canonical_bytes

_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Finding:
    """The first broken position and what is wrong there."""

    position: int
    reason: str


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape_problem(row: dict[str, Any]) -> str | None:
    for name in ("op", "by"):
        if not isinstance(row.get(name), str):
            return f"its {name} is {row.get(name)!r}, not text"
    if not _is_int(row.get("at")):
        return f"its time is {row.get('at')!r}, not epoch milliseconds"
    for name in ("prev", "hash"):
        value = row.get(name)
        if not isinstance(value, str) or not _HEX64.fullmatch(value):
            return f"its {name} is {value!r:.80}, not 64 hex digits"
    tree = row.get("tree")
    if not isinstance(tree, list) or not all(isinstance(h, str) and _HEX64.fullmatch(h) for h in tree):
        return "its Merkle tree hashes are missing or malformed"
    if not isinstance(row.get("payload"), str):
        return "its payload is missing"
    return None


class JournalAudit:
    """Feed stored entry rows in order with `feed`, then `finish` with the head; `finding` is the verdict."""

    def __init__(self, *, roots_at: Iterable[int] = (), after: int = 0, prev: str = GENESIS,
                 frontier: Frontier | None = None, clock: int = 0) -> None:
        """From the start of the journal, or resuming after position `after` whose hash is `prev`, with
        the frontier and the store clock at that position (which `feed` then advances)."""
        self.finding: Finding | None = None
        self.clock = clock
        self.checked = after
        self.frontier = frontier if frontier is not None else Frontier()
        self.roots: dict[int, bytes] = {}
        self._roots_at = set(roots_at)
        self._last: Entry | None = None
        self._last_seq = after
        self._expected_prev = prev
        if 0 in self._roots_at:
            self.roots[0] = self.frontier.root()

    @property
    def last_seq(self) -> int:
        return self._last_seq

    def _fail(self, position: int, reason: str) -> None:
        if self.finding is None:
            self.finding = Finding(position, reason)

    def feed(self, row: dict[str, Any]) -> Entry | None:
        """Check the next row; the Entry it holds when it is sound, else None (and `finding` is set).
        After the first finding every further row is ignored."""
        if self.finding is not None:
            return None
        expected = self.checked + 1
        seq = row.get("seq")
        if not _is_int(seq):
            self._fail(expected, f"the entry after position {expected - 1} has position {seq!r}, not an integer")
            return None
        if seq != expected:
            why = (f"position {expected} is missing (the next entry is at {seq})" if seq > expected
                   else f"position {seq} is stored twice")
            self._fail(min(seq, expected), why)
            return None
        shape = _shape_problem(row)
        if shape:
            self._fail(seq, f"entry {seq}: {shape}")
            return None
        try:
            payload = json.loads(row["payload"])
        except ValueError:
            self._fail(seq, f"entry {seq}: its payload is not JSON")
            return None
        if not isinstance(payload, dict):
            self._fail(seq, f"entry {seq}: its payload is not a JSON object")
            return None
        entry = Entry(seq=seq, op=row["op"], by=row["by"], at=row["at"], payload=payload, prev=row["prev"],
                      hash=row["hash"], tree=tuple(row["tree"]))
        try:
            leaf_input = canonical_bytes(entry.body())
        except EntryError as exc:
            self._fail(seq, f"entry {seq}: {exc.reason}")
            return None
        if entry.prev != self._expected_prev:
            if self._last is not None and chained_hash(entry.prev, leaf_input) == entry.hash:
                # This entry is whole and names a different predecessor: the predecessor was rewritten.
                self._fail(seq - 1, f"entry {seq - 1}: its hash is not the one entry {seq} chains from "
                                    "(rewritten with its hash recomputed)")
            else:
                self._fail(seq, f"entry {seq}: prev does not match the previous entry's hash")
            return None
        if chained_hash(entry.prev, leaf_input) != entry.hash:
            self._fail(seq, f"entry {seq}: its content does not match its hash")
            return None
        tree = self.frontier.tree_for(seq, leaf_input)
        if [h.hex() for h in tree] != list(entry.tree):
            self._fail(seq, f"entry {seq}: its content does not match the Merkle tree hashes stored with it")
            return None
        links = row.get("prev_links")
        wanted = [] if seq == 1 else [seq - 1]
        if links != wanted:
            self._fail(seq, f"entry {seq}: its PREV edges point at {links!r}, not at {wanted or 'nothing'}")
            return None
        try:
            clock = clock_after(self.clock, entry.op, payload)
        except (TypeError, ValueError):
            self._fail(seq, f"entry {seq}: its tick's k is {payload.get('k')!r}, not a whole number")
            return None
        stored_clock = row.get("clock")
        # Entries stored before the clock was kept have none (a graph reader refuses such a store).
        if stored_clock is not None and stored_clock != clock:
            self._fail(seq, f"entry {seq}: the store clock stored with it is {stored_clock!r}, but its ticks "
                            f"make it {clock}")
            return None
        self.clock = clock
        self.frontier.advance(seq, tree)
        if seq in self._roots_at:
            self.roots[seq] = self.frontier.root()
        self._last, self._last_seq, self._expected_prev, self.checked = entry, seq, entry.hash, seq
        return entry

    def finish(self, head: dict[str, Any] | None, entry_count: int, off_position: list[dict[str, Any]]) -> None:
        """Check what the pages cannot show: the head, its projected marker and unseen Entry nodes."""
        if self.finding is not None:
            return
        last = self.last_seq
        if off_position:
            odd = off_position[0].get("seq")
            claimed = int(odd) if isinstance(odd, str) and odd.isdigit() and int(odd) > 0 else last + 1
            self._fail(min(claimed, last + 1), f"an Entry node has the position {odd!r}, which is not a positive "
                                               "integer")
            return
        if entry_count != last:
            self._fail(last + 1, f"{entry_count} Entry nodes are stored but positions 1..{last} are all the "
                                 "chain holds")
            return
        if head is None:
            self._fail(last + 1, "the journal has no head")
            return
        if head.get("format") != FORMAT:
            self._fail(1, f"the journal is in format {head.get('format')!r}, not {FORMAT}")
            return
        head_seq, head_hash, projected = head.get("seq"), head.get("hash"), head.get("projected")
        if not _is_int(head_seq) or head_seq < 0:
            self._fail(last + 1, f"the head names the position {head_seq!r}")
        elif head_seq < last:
            self._fail(head_seq + 1, f"entries past the head: the head names position {head_seq}, "
                                     f"the chain goes on to {last}")
        elif head_seq > last:
            self._fail(last + 1, f"the head names position {head_seq} but the chain ends at {last}")
        elif head_hash != self._expected_prev:
            self._fail(max(last, 1), f"the head's hash is not the hash of entry {last}")
        elif not _is_int(projected) or projected < 0 or projected > head_seq:
            self._fail(head_seq + 1 if _is_int(projected) and projected > head_seq else 1,
                       f"the head's projected marker {projected!r} is not a position up to the head ({head_seq})")
        elif projected < head_seq:
            self._fail(projected + 1, f"the head's projected marker ({projected}) says entries "
                                      f"{projected + 1}..{head_seq} are not in the graph")
