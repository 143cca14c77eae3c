"""key_windows: the windows a page is read in tile everything from its start to the end once, in order,
each wider than the last, and reach past the span's edge to the ends; rows_by_place reads every row past a
cursor through them once, in order, however few rows a statement may give."""

from __future__ import annotations

from itertools import pairwise

import pytest

from graph_service.key_windows import PAST_EVERY_KEY, key_windows, rows_by_place


def _covered(windows: list[tuple[int, int]], descending: bool) -> None:
    for (low, high), (next_low, next_high) in pairwise(windows):
        assert (next_high == low) if descending else (next_low == high)  # adjacent: no gap, no overlap
    assert all(low < high for low, high in windows)


@pytest.mark.parametrize("start", [0, 1, 37, 999])
def test_ascending_windows_tile_from_the_start_to_the_end(start: int) -> None:
    windows = list(key_windows(start, descending=False, span=(0, 1000), ends=(-10**6, 10**6), first=4))
    _covered(windows, descending=False)
    assert windows[0][0] == start and windows[-1][1] == 10**6
    widths = [high - low for low, high in windows[:-1]]
    assert widths == [4 * 4**i for i in range(len(widths))] and len(windows) <= 6


@pytest.mark.parametrize("start", [1000, 10**6, 500, 1])
def test_descending_windows_tile_from_the_start_down_to_the_end(start: int) -> None:
    windows = list(key_windows(start, descending=True, span=(0, 1000), ends=(-10**6, 10**6), first=4))
    _covered(windows, descending=True)
    assert windows[0][1] == start and windows[-1][0] == -10**6
    # From past the span's top the first window reaches down from the span's edge, not from the start.
    assert windows[0][0] == min(start, 1000) - 4 or windows[0][0] == -10**6


def test_a_start_before_the_span_is_read_from_there_with_the_first_window_from_the_edge() -> None:
    windows = list(key_windows(-10**6, descending=False, span=(0, 1000), ends=(-10**6, 10**6), first=4))
    assert windows[0] == (-10**6, 4) and windows[1] == (4, 20)
    _covered(windows, descending=False)


class _Places:
    """A page query over rows at these places, as the windowed page statements answer: the rows of the window
    [from_key, to_key) in place order, at most limit of them; it counts the statements it answered."""

    def __init__(self, places: list[int]) -> None:
        self.places, self.statements = sorted(places), 0

    def run(self, _query: str, params: dict[str, int]) -> list[dict[str, int]]:
        self.statements += 1
        inside = [p for p in self.places if params["from_key"] <= p < params["to_key"]]
        return [{"at": p} for p in inside[:params["limit"]]]


@pytest.mark.parametrize("first", [None, 1, 3, 10**6])
@pytest.mark.parametrize("limit", [1, 2, 7, 500])
def test_rows_by_place_gives_every_row_past_the_cursor_once_in_order(first: int | None, limit: int) -> None:
    places = [0, 1, 2, 5, 17, 18, 4095, 4096, 5000, 99_999, 100_000, 100_001]  # the last two past the head
    for after in (-1, 0, 4, 4096, 100_000):
        graph = _Places(places)
        got = [r["at"] for r in rows_by_place(graph, "q", {}, after=after, head=99_999, limit=limit,  # type: ignore[arg-type]
                                              place=lambda r: r["at"], first=first)]
        assert got == [p for p in places if p > after], (after, limit, first)


def test_a_read_of_every_row_takes_one_statement_a_page() -> None:
    graph = _Places(list(range(0, 10**6, 997)))  # 1,004 rows up to position 10^6
    rows = list(rows_by_place(graph, "q", {}, after=-1, head=0, limit=500, place=lambda r: r["at"],  # type: ignore[arg-type]
                              first=PAST_EVERY_KEY[1]))
    assert len(rows) == 1_004 and graph.statements == 3  # 500, 500, then the last 4
