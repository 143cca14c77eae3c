"""The belief part of the store fingerprint, computable from Belief node properties alone."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graph_service.journal.chain import canonical_json

BELIEF_FINGERPRINT_FIELDS: tuple[str, ...] = ("id", "status", "confidence")
CONFIDENCE_DIGITS = 9


def fingerprint_row(props: Mapping[str, Any]) -> tuple[str, str, float]:
    """(id, status, confidence rounded to 1e-9) from a Belief node's properties."""
    return (str(props["id"]), str(props["status"]), round(float(props["confidence"]), CONFIDENCE_DIGITS))


def fingerprint_of(rows: Iterable[Mapping[str, Any] | Sequence[Any]]) -> str:
    """sha256 of the sorted rows; each row is Belief node properties or an (id, status, confidence)."""
    normal = sorted(
        fingerprint_row(
            row if isinstance(row, Mapping) else dict(zip(BELIEF_FINGERPRINT_FIELDS, row, strict=True))
        )
        for row in rows
    )
    return hashlib.sha256(canonical_json([list(r) for r in normal]).encode("utf-8")).hexdigest()
