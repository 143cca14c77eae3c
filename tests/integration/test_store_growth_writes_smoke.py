"""The store-growth benchmark, tiny: it keeps `python -m benchmarks.store_growth_writes` (two stores of the mix,
each kind of write on both, interleaved) from rotting. Its bars are the benchmark's to judge, not this test's:
at these sizes they say nothing."""

from __future__ import annotations

import re

import pytest

from benchmarks import store_growth_writes


def test_the_benchmark_reports_each_write_on_both_stores(capsys: pytest.CaptureFixture[str]) -> None:
    code = store_growth_writes.main(["--sizes", "300", "600", "--count", "2"])
    out = capsys.readouterr().out
    barred = [kind for kind in store_growth_writes.KINDS if kind not in store_growth_writes.NO_BAR]
    row = r"^(\w[\w ,]*?) +(\d+\.\d) ms +(\d+\.\d) ms +(\d+\.\d\d)x  bar <= 1\.2x: (met|NOT MET)$"
    rows = re.findall(row, out, re.M)
    assert [kind for kind, *_ in rows] == barred
    # The fact on the mix's keys has no bar: it says what it touched on each store, which grows with the mix.
    counted = re.findall(r"^fact +\d+\.\d ms +\d+\.\d ms +\d+\.\d\dx  no bar: before the first write its 12 keys "
                         r"held (\d+) items with (\d+) assertions against (\d+) with (\d+) \(\d+\.\d\dx\)$", out, re.M)
    assert len(counted) == 1, out
    items_small, held_small, items_large, held_large = map(int, counted[0])
    assert 0 < items_small <= held_small and 0 < items_large <= held_large
    for _, small, large, ratio, verdict in rows:
        assert float(small) > 0 and float(large) > 0
        # The times are printed to 0.1 ms and the ratio, of the unrounded times, to 0.01: it lies between the
        # ratios the rounded times allow (a write of about 1 ms is printed up to 5% off either way).
        lowest = (float(large) - 0.05) / (float(small) + 0.05)
        highest = (float(large) + 0.05) / max(float(small) - 0.05, 1e-9)
        assert lowest - 0.005 <= float(ratio) <= highest + 0.005, (small, large, ratio)
        if abs(float(ratio) - store_growth_writes.WITHIN) > 0.01:  # the printed ratio is rounded
            assert (verdict == "met") == (float(ratio) <= store_growth_writes.WITHIN)
    assert code == (0 if all(v == "met" for *_, v in rows) else 1)
