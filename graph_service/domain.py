"""The contract between the pure domain cores and the store that journals and projects them.

A write is planned against the current state (`Draft`: bad input raises `UserError` and nothing
is written), appended to the journal as one entry, and then applied: `apply(entry)` updates the
in-memory state deterministically and returns what the graph must change (`Applied`).
Replaying the same entries in order always gives the same state and the same projections.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from graph_service.journal.chain import Entry
from graph_service.projection import Projection


@dataclass(frozen=True, slots=True)
class Draft:
    """An entry to append: its operation name and plain-JSON payload. `changes_graph=False` promises that
    applying it projects nothing (a note), so its append also moves the projected position."""

    op: str
    payload: dict[str, Any] = field(default_factory=dict)
    changes_graph: bool = True


@dataclass(slots=True)
class Applied:
    """What applying one entry did: the graph changes and a plain result for the writer."""

    projection: Projection = field(default_factory=Projection)
    result: Any = None


class Domain(Protocol):
    """A pure state machine over journal entries (no I/O)."""

    def handles(self, op: str) -> bool:
        """Does this domain apply entries with this operation name?"""
        ...

    def apply(self, entry: Entry) -> Applied:
        """Apply one committed entry; deterministic in the entries applied so far."""
        ...


def no_hint(*_hint: object) -> None:
    """What a domain without one of the journal's optional hints (`read_ahead`, `resume_at`, `graph_holds_upto`)
    does with it: nothing."""
    return None
