"""The command line tells the truth: exit codes 0 / 1 / 2, one-line errors, progress from the start, bench by name."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from tqdm import tqdm

from graph_service import cli as command_line
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.state import StoreState
from tests.backends import Backend
from tests.integration.test_cli import seed

ROOT = Path(__file__).resolve().parents[2]
LOG_LINE = re.compile(r'^\{"time": ')  # the service's structured log lines, not the command's own words


def run(store: Backend | None, *args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_", "PYTHONPATH"))}
    return subprocess.run([sys.executable, "-m", "graph_service", *args], cwd=cwd,
                          env={**base, **(store.env() if store else {}), **env},
                          capture_output=True, text=True, timeout=300)


def said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command itself wrote on stderr: neither progress nor the service's log lines."""
    return [line for line in done.stderr.splitlines()
            if not LOG_LINE.match(line) and not re.match(r"^(open|verify|check|replay|export|load): ", line)]


def one_error(done: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    assert said(done) == [text]


def tamper(store: Backend) -> None:
    graph = store.open_graph()
    try:
        store.raw(graph, "MATCH (e:Entry {seq: 1}) SET e.payload = replace(e.payload, '\"o\":1', '\"o\":9')")
    finally:
        graph.close()


# ---- exit codes ----------------------------------------------------------------------------------


def test_rebuild_refuses_positions_and_ids_the_store_does_not_have(backend: Backend) -> None:
    a = seed(backend)
    one_error(run(backend, "rebuild", "--upto", "3"), 2,
              "graph_service rebuild: --upto 3 is past the journal's head (2 entries)")
    one_error(run(backend, "rebuild", "--upto", "-1"), 2,
              "graph_service rebuild: argument --upto: a journal position is 0 or more, not -1 "
              "(see graph_service rebuild --help)")
    one_error(run(backend, "rebuild", "--skip", a, "k-nope"), 2,
              "graph_service rebuild: --skip: the store holds no item k-nope")
    at_head = run(backend, "rebuild", "--upto", "2", "--skip", a)
    assert at_head.returncode == 0, at_head.stderr
    assert json.loads(at_head.stdout)["position"] == 2


def test_rebuild_and_verify_on_a_tampered_chain_find_a_problem(backend: Backend) -> None:
    seed(backend)
    tamper(backend)
    done = run(backend, "rebuild")
    assert done.returncode == 1 and "Traceback" not in done.stderr and done.stdout == ""
    assert said(done) == ["graph_service rebuild: the journal's chain is broken at position 1: entry 1: its "
                          "content does not match its hash; nothing rebuilt"]
    checked = run(backend, "verify")
    assert checked.returncode == 1 and json.loads(checked.stdout)["first_bad"] == 1


def test_fingerprint_of_a_tampered_chain_is_what_its_sound_prefix_believes(backend: Backend) -> None:
    # As a start folds it: up to the break (the command reads the graph's running sums only for a sound chain).
    seed(backend)
    tamper(backend)
    done = run(backend, "fingerprint")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == StoreState().fingerprints()  # the break is at entry 1: nothing before it


def test_a_graph_that_lags_its_journal_is_projected_before_rebuild_reads_it(backend: Backend) -> None:
    seed(backend)
    service = Service.open(backend.settings())
    real_run = service.graph.run

    def refusing_run(name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        if name.startswith("project_"):  # the entry is durable, its projection lost
            raise RuntimeError("the backend dropped the connection")
        return real_run(name, params)

    try:
        service.graph.run = refusing_run  # type: ignore[method-assign]
        raw = {"kind": "fact", "body": {"s": "a", "r": "c", "o": 3}, "source": "person"}
        added = service.journal.write("ann", lambda: service.plan_knowledge(
            lambda k: planning.plan_add(k, raw, by="ann"))).result["id"]
    finally:
        service.graph.run = real_run  # type: ignore[method-assign]
        service.close()
    done = run(backend, "rebuild", "--skip", added)  # an item only the unprojected entry wrote
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["position"] == 3
    checked = run(backend, "verify")
    assert json.loads(checked.stdout)["ok"] is True


def test_load_of_a_missing_file_is_bad_usage_and_leaves_no_store_behind(tmp_path: Path) -> None:
    store = Backend("falkordb", tmp_path / "never")
    one_error(run(store, "load", str(tmp_path / "missing.jsonl")), 2,
              f"graph_service load: cannot read {tmp_path / 'missing.jsonl'}: no such file")
    one_error(run(store, "load", str(tmp_path)), 2, f"graph_service load: cannot read {tmp_path}: not a file")
    assert not store.data_dir.exists()


def test_usage_and_configuration_errors_are_one_line_before_any_store_is_opened(tmp_path: Path) -> None:
    store = Backend("falkordb", tmp_path / "never")
    one_error(run(store, "export", "--output", str(tmp_path / "no" / "such" / "file")), 2,
              f"graph_service export: --output: no such folder: {tmp_path / 'no' / 'such'}")
    one_error(run(store, "export", "--node", "k-1"), 2, "graph_service export: --node: only a PROV format "
              "(prov-json, prov-n, prov-o) exports one node's derivation")
    one_error(run(store, "export", "--format", "xml"), 2, "graph_service export: argument --format: invalid "
              "choice: 'xml' (choose from 'journal', 'prov-json', 'prov-n', 'prov-o') "
              "(see graph_service export --help)")
    one_error(run(store, "fingerprint", GRAPH_SERVICE_PORT="eighty"), 2, "graph_service fingerprint: bad "
              "configuration in the environment: invalid literal for int() with base 10: 'eighty'")
    assert not store.data_dir.exists()


def test_a_store_that_cannot_be_reached_is_a_problem_said_in_one_line(tmp_path: Path) -> None:
    done = run(None, "verify", GRAPH_SERVICE_DATA=str(tmp_path / "data"), NEO4J_URI="bolt://127.0.0.1:9")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert len(said(done)) == 1 and said(done)[0].startswith("graph_service verify: failed: ")


# ---- progress ------------------------------------------------------------------------------------


def test_long_commands_show_progress_lines_when_stderr_is_not_a_terminal(backend: Backend, tmp_path: Path) -> None:
    seed(backend)
    exported = tmp_path / "journal.jsonl"
    for args, bars in ((["verify"], ["verify"]), (["rebuild"], ["check", "replay"]),
                       (["export", "--output", str(exported)], ["export"]),
                       (["export", "--format", "prov-o"], ["export"])):
        done = run(backend, *args)
        assert done.returncode == 0, done.stderr
        assert "\r" not in done.stderr  # whole lines, for a log or a pipe
        for bar in bars:
            lines = [line for line in done.stderr.splitlines() if re.match(rf"{bar}: +\d+%", line)]
            assert lines[0].startswith(f"{bar}:   0%") and "0/2" in lines[0]  # shown from the start
            # The rate, in the unit tqdm picks for it: entry/s, or s/entry below one a second (a loaded machine).
            assert "2/2" in lines[-1] and re.search(r"\d ?(entry/s|s/entry)\]", lines[-1]), lines[-1]
        if args == ["verify"]:  # then the graph's comparison, over the nodes and edges the two entries made
            lines = [line for line in done.stderr.splitlines() if re.match(r"compare: +\d+%", line)]
            total = re.search(r" (\d+)/(\d+) ", lines[-1])
            assert lines[-1].startswith("compare: 100%") and total and total[1] == total[2] and int(total[1]) > 2
            assert re.search(r"\d ?(node/s|s/node)\]", lines[-1]), lines[-1]
    other = Backend("falkordb", tmp_path / "other")
    loaded = run(other, "load", str(exported))
    assert loaded.returncode == 0, loaded.stderr
    lines = [line for line in loaded.stderr.splitlines() if re.match(r"load: +\d+%", line)]
    size = tqdm.format_sizeof(exported.stat().st_size, divisor=1024)
    assert lines[0].startswith("load:   0%") and lines[-1].startswith(f"load: 100%|##########| {size}/{size}")
    assert "B/s" in lines[-1]


def test_on_a_terminal_progress_is_a_live_bar(backend: Backend) -> None:
    seed(backend)
    parent, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_"))}
    process = subprocess.Popen([sys.executable, "-m", "graph_service", "verify"], cwd=ROOT,
                               env={**base, **backend.env()}, stdout=subprocess.PIPE, stderr=child)
    os.close(child)
    shown = b""
    while True:
        ready, _, _ = select.select([parent], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(parent, 4096)
        except OSError:  # the terminal's far end closed: the command is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(parent)
    assert process.wait(timeout=60) == 0
    text = shown.decode()
    assert "\rverify: 100%" in text and "2/2" in text  # redrawn in place


def test_progress_lines_come_every_few_seconds_while_work_advances(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(command_line, "PLAIN_EVERY", 0.2)
    for _ in command_line.progress(range(20), desc="work", total=20):
        time.sleep(0.05)  # a second of work
    lines = stderr.getvalue().splitlines()
    assert lines[0].startswith("work:   0%") and lines[-1].startswith("work: 100%")
    assert 4 <= len(lines) <= 8, lines  # one at the start, one about every 0.2 s, and the last: not one per item


def test_opening_a_store_shows_its_replay_once_it_takes_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    class Journal:
        seq = 0

    class Service:  # what the progress reads of a service that is opening
        journal = Journal()

        def stored_total(self) -> int:
            return 50

    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(command_line, "PLAIN_EVERY", 0.05)
    monkeypatch.setattr(command_line, "OPEN_QUIET", 0.1)
    service = Service()
    journal = service.journal
    with command_line._OpeningProgress() as opening:
        opening.watch(service)  # type: ignore[arg-type]
        for seq in range(1, 51):
            journal.seq = seq
            time.sleep(0.01)
    lines = stderr.getvalue().splitlines()
    assert lines and all(line.startswith("open: ") for line in lines) and "50/50" in lines[-1]
    quick = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quick)
    monkeypatch.setattr(command_line, "OPEN_QUIET", 5.0)
    with command_line._OpeningProgress() as opening:
        opening.watch(service)  # type: ignore[arg-type]
    assert quick.getvalue() == ""  # an open quicker than the quiet time says nothing


# ---- bench ---------------------------------------------------------------------------------------


def test_bench_runs_a_benchmark_by_name_with_its_options_from_anywhere(tmp_path: Path) -> None:
    done = run(None, "bench", "log_proofs", "--sizes", "200", "--proofs", "5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "200 entries" in done.stdout and "bar (p50 <= 10 ms at 200): met" in done.stdout
    retraction = run(None, "bench", "knowledge_retraction", "--items", "100", "--retractions", "5", "--big", "0",
                     "--quiet", cwd=tmp_path)
    assert retraction.returncode == 0, retraction.stderr
    assert "exact: 5/5" in retraction.stdout
    every = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if not p.stem.startswith("_"))
    assert {"knowledge_retraction", "log_proofs"} <= set(every)
    one_error(run(None, "bench", "nothing", cwd=tmp_path), 2,
              f"graph_service bench: no benchmark 'nothing'; there are: {', '.join(every)}")
    wrong = run(None, "bench", "log_proofs", "--sizes", "many", cwd=tmp_path)
    assert wrong.returncode == 2 and "argument --sizes: invalid int value: 'many'" in wrong.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran
