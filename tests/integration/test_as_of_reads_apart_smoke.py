"""The as-of reads benchmark, tiny: `python -m benchmarks.as_of_reads_apart` loads a store of the as-of tests' mix,
serves two copies of it side by side and reads each list as of the middle of its journal on both, with /healthz
asked meanwhile. Its `--old` here is this tree itself, so both answers must agree and every read must report a
time and probes. It had rotted once (it imported a helper a test module no longer has) without anything noticing:
this keeps it running. Its figures are the full run's to give, not this test's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import as_of_reads_apart

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_serves_both_copies_and_reports_every_read(capsys: pytest.CaptureFixture[str]) -> None:
    reads = ["items", "beliefs"]
    assert as_of_reads_apart.main(["--old", str(ROOT), "--mix", "60", "--rounds", "1", "--reads", *reads]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^store: [\d,]+ entries, loaded in \d+ s; reads as of \d+$", out, re.M), out
    for read in reads:
        for label in ("old", "new"):
            row = re.search(rf"^ +1 {read} +{label} +(\d+\.\d+) +(\d+) ", out, re.M)
            assert row is not None and float(row[1]) > 0, out
        assert re.search(rf"^{read} +\d+\.\d+ -> +\d+\.\d+ \(\d+\.\d\dx\)", out, re.M), out
