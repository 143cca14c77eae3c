"""The fingerprint of what the store believes, computable from Item node properties alone.

Every present item (any status but retracted) contributes the digest of its fingerprint fields;
the digests are summed modulo 2**256, so the store can keep the sum as items change (O(1) per
change) and the graph adapter can compute the same value from rows it reads back, in any order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from graph_service.journal.chain import canonical_json

ITEM_FINGERPRINT_FIELDS: tuple[str, ...] = ("id", "status", "rank", "support", "valid_since", "valid_until")
_MODULUS = 1 << 256


def counts_in_fingerprint(row: Mapping[str, Any]) -> bool:
    """Is this Item row part of the fingerprint? Retracted items and bare placeholder nodes are not."""
    status = row.get("status")
    return isinstance(status, str) and status != "retracted"


def row_digest(row: Mapping[str, Any]) -> int:
    """The digest of one Item row's fingerprint fields, as an integer."""
    values = [list(v) if isinstance(v, tuple) else v for v in (row.get(f) for f in ITEM_FINGERPRINT_FIELDS)]
    return int(hashlib.sha256(canonical_json(values).encode("utf-8")).hexdigest(), 16)


def combine(total: int, count: int) -> str:
    """The fingerprint string of a running (digest sum, row count)."""
    return hashlib.sha256(
        canonical_json([count, format(total % _MODULUS, "064x")]).encode("ascii")
    ).hexdigest()


def fingerprint_of(rows: Iterable[Mapping[str, Any]]) -> str:
    """The fingerprint of a set of Item rows (dicts holding at least ITEM_FINGERPRINT_FIELDS)."""
    total, count = 0, 0
    for row in rows:
        if counts_in_fingerprint(row):
            total = (total + row_digest(row)) % _MODULUS
            count += 1
    return combine(total, count)


class RunningFingerprint:
    """The fingerprint kept up to date as rows are replaced, equal to `fingerprint_of` the current rows."""

    def __init__(self) -> None:
        self.total = 0
        self.count = 0

    def replace(self, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> None:
        """Account for one row changing from `old` to `new` (None: absent)."""
        if old is not None and counts_in_fingerprint(old):
            self.total = (self.total - row_digest(old)) % _MODULUS
            self.count -= 1
        if new is not None and counts_in_fingerprint(new):
            self.total = (self.total + row_digest(new)) % _MODULUS
            self.count += 1

    def value(self) -> str:
        return combine(self.total, self.count)
