"""key_windows: the windows a page is read in tile everything from its start to the end once, in order,
each wider than the last, and reach past the span's edge to the ends."""

from __future__ import annotations

from itertools import pairwise

import pytest

from graph_service.key_windows import key_windows


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
