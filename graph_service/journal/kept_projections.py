"""The projections a process applied but the graph does not hold yet, kept for a catch-up to write.

A write's projection statement can fail (the entry is durable all the same) or wait for one before it; a bulk load
projects a batch after appending it. Keeping what was computed lets a catch-up write the gap in one guarded
statement instead of replaying the whole journal to derive it again (Journal._project_kept).
"""

from __future__ import annotations

import threading

from graph_service.projection import Projection

# Projections kept at most: past this (a backend refusing projections for that long) the gap is left to a replay,
# which derives them again, rather than held in memory.
MAX_KEPT_PROJECTIONS = 10_000


class KeptProjections:
    """Projections by position, bounded by MAX_KEPT_PROJECTIONS; safe to use from several threads (a write's
    projection step prunes it from a worker thread)."""

    def __init__(self) -> None:
        self._kept: dict[int, Projection] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def keep(self, seq: int, projection: Projection) -> None:
        """Keep the projection of the entry at `seq`, unless the bound is reached."""
        with self._lock:
            if len(self._kept) < MAX_KEPT_PROJECTIONS:
                self._kept[seq] = projection

    def drop_through(self, seq: int) -> None:
        """The graph holds every projection up to `seq`: keep none of them."""
        with self._lock:
            for kept in [s for s in self._kept if s <= seq]:
                del self._kept[kept]

    def every_one_of(self, positions: range) -> list[tuple[int, Projection]] | None:
        """The kept projections of `positions`, in order; None when one of them was never kept."""
        with self._lock:
            kept = [(seq, self._kept[seq]) for seq in positions if seq in self._kept]
        return kept if len(kept) == len(positions) else None

    def clear(self) -> None:
        """Keep nothing (the state is replayed from the journal, which derives them again)."""
        with self._lock:
            self._kept.clear()
