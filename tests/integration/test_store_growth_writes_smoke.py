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
    rows = re.findall(r"^(\w+) +(\d+\.\d) ms +(\d+\.\d) ms +(\d+\.\d\d)x  bar <= 1\.2x: (met|NOT MET)$", out, re.M)
    assert [kind for kind, *_ in rows] == list(store_growth_writes.KINDS)
    for _, small, large, ratio, verdict in rows:
        assert float(small) > 0 and float(large) > 0
        assert abs(float(ratio) - float(large) / float(small)) < 0.01 + float(ratio) * 0.05  # printed rounded
        if abs(float(ratio) - store_growth_writes.WITHIN) > 0.01:  # the printed ratio is rounded
            assert (verdict == "met") == (float(ratio) <= store_growth_writes.WITHIN)
    assert code == (0 if all(v == "met" for *_, v in rows) else 1)
