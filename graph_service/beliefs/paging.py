"""The windows of ranks a page of beliefs is read in at the head. Pure.

A page ordered by confidence is read a window of ranks at a time (the rank index answers a range), from
the cursor onwards, each window four times as wide as the one before, until the page is full: a page
sorts what its windows hold, never every belief, and the last window reaches past every rank so no
belief is ever missed.
"""

from __future__ import annotations

from collections.abc import Iterator

from graph_service.beliefs.records import CONFIDENCE_KEY_UNITS

FIRST_WIDTH = CONFIDENCE_KEY_UNITS // 32  # a thirty-second of the confidence scale; then 1/8, 1/2, all
BEYOND = 2**62  # past any rank (a confidence is 0 to 1), so the last window holds every rank left


def rank_windows(descending: bool, after_key: int | None) -> Iterator[tuple[int, int]]:
    """(low, high) rank ranges, inclusive, in page order from the cursor's rank (or the top or bottom
    of the scale), disjoint and together covering every rank on the page's side of the cursor; the
    last reaches ±BEYOND."""
    width = FIRST_WIDTH
    if descending:
        high = BEYOND if after_key is None else after_key
        while True:
            low = min(high, CONFIDENCE_KEY_UNITS) - width + 1
            if low <= 0:
                yield -BEYOND, high
                return
            yield low, high
            high, width = low - 1, width * 4
    low = -BEYOND if after_key is None else after_key
    while True:
        high = max(low, 0) + width - 1
        if high >= CONFIDENCE_KEY_UNITS:
            yield low, BEYOND
            return
        yield low, high
        low, width = high + 1, width * 4
