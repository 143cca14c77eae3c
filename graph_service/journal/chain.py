"""Pure journal hashing and chain verification: no driver, no I/O.

hash(n) = sha256(hash(n-1) || JCS(entry n)), the first entry chaining from GENESIS, where JCS is the
RFC 8785 canonical form of the entry body (format 2; docs/log-format.md). Format 1 hashed Python's
own sorted-keys JSON, which no verifier in another language reproduces (it writes `1.0` where JCS
writes `1`); a store in format 1 is refused with a message saying how to migrate it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from graph_service.tlog.verifier import canonical_bytes

GENESIS = "0" * 64
MAX_PAYLOAD_BYTES = 64 * 1024
FORMAT = 2
"""The journal's encoding: 2 = RFC 8785 entry bodies, RFC 9162 Merkle tree hashes kept with each entry."""


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 (not ASCII-escaped); floats as Python's shortest repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal entry. `payload` is plain JSON; `at` is epoch milliseconds."""

    seq: int
    op: str
    by: str
    at: int
    payload: dict[str, Any] = field(default_factory=dict)
    prev: str = GENESIS
    hash: str = ""
    tree: tuple[str, ...] = ()
    """The Merkle tree hashes stored with the entry (hex; graph_service.tlog.tree), not part of its hash."""

    def body(self) -> dict[str, Any]:
        """The hashed content of the entry (everything but the chain fields)."""
        return {"seq": self.seq, "op": self.op, "by": self.by, "at": self.at, "payload": self.payload}


def entry_hash(prev: str, body: dict[str, Any]) -> str:
    """sha256 over the previous hash (64 hex digits, ASCII) followed by the RFC 8785 bytes of the body.

    EntryError for a body that has no canonical form (see graph_service.tlog.verifier.canonical_bytes).
    """
    return chained_hash(prev, canonical_bytes(body))


def chained_hash(prev: str, body_bytes: bytes) -> str:
    """`entry_hash` from a body's RFC 8785 bytes already made (they are the Merkle leaf's input too)."""
    return hashlib.sha256(prev.encode("ascii") + body_bytes).hexdigest()


def legacy_entry_hash(prev: str, body: dict[str, Any]) -> str:
    """The format-1 hash (Python's sorted-keys JSON), to check a format-1 journal before migrating it."""
    return hashlib.sha256(prev.encode("ascii") + canonical_json(body).encode("utf-8")).hexdigest()


def seal(prev: str, seq: int, op: str, by: str, at: int, payload: dict[str, Any]) -> Entry:
    """Build the entry that follows `prev` at position `seq`, with its hash."""
    return sealed_with_bytes(prev, seq, op, by, at, payload)[0]


def sealed_with_bytes(prev: str, seq: int, op: str, by: str, at: int, payload: dict[str, Any]) -> tuple[Entry, bytes]:
    """`seal`, and the body's RFC 8785 bytes it hashed: the Merkle leaf's input, made once (the pure-Python
    canonicaliser is a large share of a write's own cost)."""
    draft = Entry(seq=seq, op=op, by=by, at=at, payload=payload, prev=prev)
    body_bytes = canonical_bytes(draft.body())
    return Entry(seq=seq, op=op, by=by, at=at, payload=payload, prev=prev,
                 hash=chained_hash(prev, body_bytes)), body_bytes
