"""Reads of the graph that hold for one position of the journal, taken beside the service's writes.

A write appends its entry and projects what it implies; the Head node's `seq` is the last entry appended and its
`projected` the last one projected. A read taken between two reads of the head that agree, with the head projected
to its position, saw no write land: what it read is the graph as of that position. verify compares such reads with
a replay up to the same position (Journal.verify; verifying's node counts).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph_service.storage.port import GraphPort

# How long a read waits for a moment with no write landing before it gives what it read last, unsettled.
SETTLE_SECONDS = 60.0
# How long a head must stay the same with its projected marker behind before it is given as read (for a check of the
# chain to name: a crash between an append and its projection that was not caught up, or a tampered marker). A write's
# projection follows its append within milliseconds, but on the embedded server it waits for the reads in flight, and
# a read of every item (an items page's totalCount, a bulk export) takes seconds at 10^6 items (9 s for every
# item's fingerprinted properties). Judged too early, a projection on its way was called a break and the service then
# refused every write; judged late, only a store that is really behind waits this long for its report.
QUIET_SECONDS = 30.0

T = TypeVar("T")


@dataclass(frozen=True)
class Settled(Generic[T]):
    """What `read` gave, with the head row read before and after it (None: no head)."""

    head: dict[str, Any] | None
    value: T
    settled: bool  # no write landed during the read, and the head was projected to its position
    stuck: bool = False  # the head stayed the same with its projected marker behind for QUIET_SECONDS

    @property
    def seq(self) -> int | None:
        """The head's position (None without a head, or a head whose position is not an integer)."""
        seq = self.head.get("seq") if self.head is not None else None
        return seq if isinstance(seq, int) else None


def head_row(graph: GraphPort) -> dict[str, Any] | None:
    """The Head node's row (`head_read`), None in a store without one."""
    heads = graph.run("head_read")
    return heads[0] if heads else None


def _behind(head: dict[str, Any]) -> bool:
    """Is the head's projected marker a position before the head's (a projection may be on its way)?"""
    seq, projected = head.get("seq"), head.get("projected")
    return isinstance(seq, int) and isinstance(projected, int) and projected < seq


def read_settled(graph: GraphPort, read: Callable[[], T]) -> Settled[T]:
    """`read()` taken while no write landed: the head the same before and after it, with its projected marker at its
    position. A head that stays the same for QUIET_SECONDS with its marker behind is given as read (for a check of the
    chain to name), and so is the last read once writes have kept landing for SETTLE_SECONDS; neither is `settled`."""
    deadline = time.monotonic() + SETTLE_SECONDS
    still: dict[str, Any] | None = None
    still_since = 0.0
    while True:
        first = head_row(graph)
        value = read()
        again = head_row(graph)
        now = time.monotonic()
        if first != again:
            still = None
        elif first is None or not _behind(first):
            # A marker past the head, or not a position, is no write on its way: the check of the chain names it.
            return Settled(again, value, first is None or first.get("projected") == first.get("seq"))
        elif first != still:
            still, still_since = first, now
        elif now - still_since >= QUIET_SECONDS:
            return Settled(again, value, False, stuck=True)
        if now > deadline:
            return Settled(again, value, False)
        if first == again:
            time.sleep(0.005)  # a write between its append and its projection takes milliseconds
