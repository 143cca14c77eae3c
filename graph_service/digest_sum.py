"""A fingerprint of a set of rows that is kept up to date one row at a time. Pure.

Each row contributes the sha256 of its canonical JSON, as an integer; the digests are summed modulo 2**256
and the fingerprint is the hash of (count, sum). So a store keeps it in O(1) a change (take the old row's
digest out, put the new one's in), a reader recomputes the same value from rows in any order, and nothing
on a request's path hashes every row.
"""

from __future__ import annotations

import hashlib
from typing import Any

from graph_service.journal.chain import canonical_json

MODULUS = 1 << 256


def row_digest(values: Any) -> int:
    """The digest of one row's values (anything canonical JSON writes), as an integer."""
    return int(hashlib.sha256(canonical_json(values).encode("utf-8")).hexdigest(), 16)


def combine(total: int, count: int) -> str:
    """The fingerprint string of a running (digest sum, row count)."""
    return hashlib.sha256(
        canonical_json([count, format(total % MODULUS, "064x")]).encode("ascii")
    ).hexdigest()


def moved_by(base: tuple[int, int], by: tuple[int, int]) -> tuple[int, int]:
    """A running (digest sum, count) `base` with the changes `by` (a sum and count moved from (0, 0)) added."""
    return (base[0] + by[0]) % MODULUS, base[1] + by[1]


class DigestSum:
    """A running (digest sum, row count): `value()` equals `combine` over the rows added and not removed."""

    def __init__(self, total: int = 0, count: int = 0) -> None:
        self.total = total
        self.count = count

    def add(self, digest: int) -> None:
        self.total = (self.total + digest) % MODULUS
        self.count += 1

    def remove(self, digest: int) -> None:
        self.total = (self.total - digest) % MODULUS
        self.count -= 1

    def sum(self) -> tuple[int, int]:
        return self.total, self.count

    def value(self) -> str:
        return combine(self.total, self.count)
