"""When items' assertions run out on the store clock, pending until a tick passes them. Pure.

An item whose verdict says it runs out at a time still ahead of the clock is queued at that time; a tick
takes every item queued at or before the new clock and re-decides it (SPEC 3.2). An item is queued once per
time (re-deciding it to the same time again queues nothing), and a time once passed is never queued again,
since the clock never goes back. What an entry changed in the queue (`changes`) is what the graph keeps of
it, one Due node per item and time (graph_service.state), so a write that holds no copy of the store reads
an item's pending times with the item and a tick's due items by the index on their time.
"""

from __future__ import annotations

import heapq


class ExpiryQueue:
    """The pending (time, item) pairs of a store: each item's times (`pending`) and all of them by time."""

    def __init__(self) -> None:
        self.pending: dict[str, set[int]] = {}
        self.heap: list[tuple[int, str]] = []
        # The last entry's changes: (item, time) -> True when it was queued, False when a tick took it.
        self.changes: dict[tuple[str, int], bool] = {}

    def push(self, item_id: str, expires: int) -> None:
        """Queue the item at `expires` (a time ahead of the clock), unless it is queued there already."""
        times = self.pending.setdefault(item_id, set())
        if expires in times:
            return
        times.add(expires)
        heapq.heappush(self.heap, (expires, item_id))
        self.changes[(item_id, expires)] = True

    def take_due(self, clock: int) -> set[str]:
        """Take every pair queued at or before `clock`; the items among them."""
        due: set[str] = set()
        for expires, item_id in self._due_upto(clock):
            times = self.pending[item_id]
            times.discard(expires)
            if not times:
                del self.pending[item_id]
            self.changes[(item_id, expires)] = False
            due.add(item_id)
        return due

    def _due_upto(self, clock: int) -> list[tuple[int, str]]:
        """The pairs queued at or before `clock`, off the heap, by time."""
        taken = []
        while self.heap and self.heap[0][0] <= clock:
            taken.append(heapq.heappop(self.heap))
        return taken
