"""Three benchmarks of `make bench`, tiny, so that they keep running: the Merkle proofs (`log_proofs`), the pure
core's incremental evaluation (`knowledge_incremental`) and what a knowledge write reads as the store grows
(`knowledge_region`). At these sizes their bars say nothing, so only what each must print is checked. Another one,
`as_of_reads_apart`, had failed at its first line without anything noticing."""

from __future__ import annotations

import re

import pytest

from benchmarks import knowledge_incremental, knowledge_region, log_proofs


def test_log_proofs_reports_both_proofs_and_the_raw_trip(capsys: pytest.CaptureFixture[str]) -> None:
    log_proofs.main(["--sizes", "200", "--proofs", "10"])
    out = capsys.readouterr().out
    for proof in ("inclusion", "consistency", "raw head_read"):
        assert re.search(rf"^ +{proof} +p50 +\d+\.\d\d ms +p95 +\d+\.\d\d ms", out, re.M), out
    assert re.search(r"^bar \(p50 <= 10 ms at 200\): (met|NOT MET)$", out, re.M), out


def test_knowledge_incremental_reports_each_shape(capsys: pytest.CaptureFixture[str]) -> None:
    knowledge_incremental.main(["--items", "200", "--rounds", "3", "--replay-items", "200", "--repeats", "1"])
    out = capsys.readouterr().out
    assert re.search(r"end / start = \d+\.\d\d \(bar <= 1\.5\)  (PASS|FAIL)", out), out
    for shape in ("independent facts", "one chain", "one diamond lattice"):
        assert re.search(rf"^ +{shape} +\d+\.\d+ s", out, re.M), out
    assert re.search(r"^overall: (PASS|FAIL)$", out, re.M), out


def test_knowledge_region_reads_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    knowledge_region.main(["--sizes", "300", "--samples", "5", "--rounds", "1"])
    out = capsys.readouterr().out
    for figure in ("component items", "reads ms (in memory)", "reads statements (graph)", "reads ms (graph)"):
        row = re.search(rf"^ *{re.escape(figure)}: (\d+\.\d) at 300", out, re.M)
        assert row is not None and float(row[1]) > 0, out
