"""The fingerprint of what the store believes, computable from Item node properties alone.

Every present item (any status but retracted) contributes the digest of its fingerprint fields;
the digests are summed modulo 2**256, so the store can keep the sum as items change (O(1) per
change) and the graph adapter can compute the same value from rows it reads back, in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graph_service import digest_sum
from graph_service.digest_sum import DigestSum

ITEM_FINGERPRINT_FIELDS: tuple[str, ...] = ("id", "status", "rank", "support", "valid_since", "valid_until")


def counts_in_fingerprint(row: Mapping[str, Any]) -> bool:
    """Is this Item row part of the fingerprint? Retracted items and bare placeholder nodes are not."""
    status = row.get("status")
    return isinstance(status, str) and status != "retracted"


def row_digest(row: Mapping[str, Any]) -> int:
    """The digest of one Item row's fingerprint fields, as an integer."""
    values = [list(v) if isinstance(v, tuple) else v for v in (row.get(f) for f in ITEM_FINGERPRINT_FIELDS)]
    return digest_sum.row_digest(values)


def fingerprint_of(rows: Iterable[Mapping[str, Any]]) -> str:
    """The fingerprint of a set of Item rows (dicts holding at least ITEM_FINGERPRINT_FIELDS)."""
    running = DigestSum()
    for row in rows:
        if counts_in_fingerprint(row):
            running.add(row_digest(row))
    return running.value()


class RunningFingerprint(DigestSum):
    """The fingerprint kept up to date as rows are replaced, equal to `fingerprint_of` the current rows."""

    def replace(self, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> None:
        """Account for one row changing from `old` to `new` (None: absent)."""
        if old is not None and counts_in_fingerprint(old):
            self.remove(row_digest(old))
        if new is not None and counts_in_fingerprint(new):
            self.add(row_digest(new))
