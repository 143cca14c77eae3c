"""The belief part of the store fingerprint, computable from Belief node properties alone.

Every belief contributes the digest of (id, status, confidence rounded to 1e-9); the digests are summed
(graph_service.digest_sum), so the belief layer keeps the sum as beliefs change, the graph keeps it on the
`beliefs` Fingerprint node, and a reader of every Belief node computes the same value in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graph_service.digest_sum import DigestSum, row_digest

BELIEF_FINGERPRINT_FIELDS: tuple[str, ...] = ("id", "status", "confidence")
CONFIDENCE_DIGITS = 9


def fingerprint_row(props: Mapping[str, Any]) -> tuple[str, str, float]:
    """(id, status, confidence rounded to 1e-9) from a Belief node's properties."""
    return (str(props["id"]), str(props["status"]), round(float(props["confidence"]), CONFIDENCE_DIGITS))


def belief_digest(props: Mapping[str, Any]) -> int:
    """The digest of one belief's fingerprint row."""
    return row_digest(list(fingerprint_row(props)))


def _props(row: Mapping[str, Any] | Sequence[Any]) -> Mapping[str, Any]:
    return row if isinstance(row, Mapping) else dict(zip(BELIEF_FINGERPRINT_FIELDS, row, strict=True))


def fingerprint_of(rows: Iterable[Mapping[str, Any] | Sequence[Any]]) -> str:
    """The fingerprint of a set of beliefs; each row is Belief node properties or an (id, status, confidence)."""
    running = DigestSum()
    for row in rows:
        running.add(belief_digest(_props(row)))
    return running.value()


class RunningBeliefFingerprint(DigestSum):
    """The belief fingerprint kept up to date as beliefs change, equal to `fingerprint_of` every belief."""

    def replace(self, belief_id: str, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> None:
        """Account for one belief going from `old` ({status, confidence}; None: new) to `new`."""
        if old is not None:
            self.remove(belief_digest({**old, "id": belief_id}))
        self.add(belief_digest({**new, "id": belief_id}))
