"""Reading an ordered range a window at a time: FalkorDB reads an index range in no order and sorts all of it
before a LIMIT, so one statement from a cursor to the end of a range sorts every row past the cursor. Read in
widening windows of whole-number keys, a page sorts only the rows of the windows it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from graph_service.storage.port import GraphPort

# The first window is this wide in a key space's units ...
FIRST_WINDOW = 2**18
# ... and each next one this many times wider, so a page takes a few windows.
WIDENING = 4
# Past every key either way: the outermost windows reach to these, so that no key, however it came, is left out.
PAST_EVERY_KEY = (-(10**18), 10**18)
# A first window of journal positions (places: a question's, unknown's, flag's or dispute's position): the mix
# opens a dispute about every 160 entries, so a page of 20 takes one window and a page of 50 two; however many
# rows a store holds, a window sorts at most this many.
PLACES_FIRST_WINDOW = 4096


def key_windows(start: int, *, descending: bool, span: tuple[int, int], ends: tuple[int, int],
                first: int = FIRST_WINDOW) -> Iterator[tuple[int, int]]:
    """Windows [low, high) of whole-number keys from `start` on, up (or down, `descending`), each
    `WIDENING` times wider than the last, together covering everything from `start` to the end of
    `ends` once. Keys lie in `span`; a window reaching past the span's edge reaches to the end of `ends`
    instead, so a key outside the span is still read, last."""
    width = first
    if descending:
        high, origin = start, min(start, span[1])
        while True:
            low = origin - width if origin - width > span[0] else ends[0]
            yield low, high
            if low == ends[0]:
                return
            high = origin = low
            width *= WIDENING
    low, origin = start, max(start, span[0])
    while True:
        high = origin + width if origin + width < span[1] else ends[1]
        yield low, high
        if high == ends[1]:
            return
        low = origin = high
        width *= WIDENING


def rows_by_place(graph: GraphPort, query: str, params: dict[str, Any], *, after: int, head: int, limit: int,
                  place: Callable[[dict[str, Any]], int], first: int | None = None) -> Iterator[dict[str, Any]]:
    """Every row the named query selects whose place (a journal position, one row at each: `place` gives a row's)
    is past `after`, in place order: `query` reads the window of places [$from_key, $to_key), at most $limit
    rows in place order, and the windows run from `after` + 1 past `head` (the journal's last position) to past
    every place, the first `first` places wide (PLACES_FIRST_WINDOW), each next one wider. A window that gives
    `limit` rows is read on from its last row's place. A read of every row gives `first` = PAST_EVERY_KEY[1]:
    then one window holds every place (it reads every row anyway, and a statement a window is what a few rows
    cost), whatever `head` says."""
    for low, high in key_windows(after + 1, descending=False, span=(0, head + 1), ends=(0, PAST_EVERY_KEY[1]),
                                 first=PLACES_FIRST_WINDOW if first is None else max(1, first)):
        while True:
            rows = graph.run(query, {**params, "from_key": low, "to_key": high, "limit": limit})
            yield from rows
            if len(rows) < limit:
                break
            low = place(rows[-1]) + 1
