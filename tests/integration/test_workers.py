"""`serve --workers 2`: two processes behind one port serve one store, on every backend.

Each worker writes through the journal's compare-and-set, so concurrent writes through both land once
each in one sound chain and each worker reads what the other wrote; a worker killed is replaced while
the other serves; the parent killed takes its workers with it; a worker that cannot open the service
stops the whole command instead of being restarted to fail forever."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmarks.service_shape import post, ready_pids
from tests.backends import Backend
from tests.integration.test_explorer import free_port
from tests.integration.test_startup import probe, start_serving

WRITES = 120


def wait_ready(proc: subprocess.Popen[bytes], base: str, folder: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, (folder / "serve.log").read_text()[-3000:]
        answer = probe(f"{base}/readyz")
        if answer is not None and answer[0] == 200:
            return
        time.sleep(0.1)
    raise AssertionError("not ready in time:\n" + (folder / "serve.log").read_text()[-3000:])


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def test_two_workers_serve_one_store(backend: Backend, tmp_path: Path) -> None:
    proc, base = start_serving(backend, tmp_path, "--workers", "2")
    try:
        wait_ready(proc, base, tmp_path)
        pids = ready_pids(base, 2)
        assert len(pids) == 2 and os.getpid() not in pids and proc.pid not in pids, pids

        def write(i: int) -> int:
            answer = post(base, 'mutation($t: String!) { note(text: $t) { seq } }', {"t": f"w{i}"})
            assert "errors" not in answer, answer
            return answer["data"]["note"]["seq"]

        with ThreadPoolExecutor(8) as pool:
            seqs = list(pool.map(write, range(WRITES)))
        assert sorted(seqs) == list(range(1, WRITES + 1))  # each write once, no position twice
        # Whichever worker answers has caught up with what the other wrote, and the chain is sound.
        for _ in range(6):
            answer = post(base, "{ head { seq } verify { ok firstBad } }")
            assert answer["data"] == {"head": {"seq": WRITES}, "verify": {"ok": True, "firstBad": None}}, answer
        texts = post(base, "{ journal(first: 500) { edges { node { payload } } } }")["data"]["journal"]["edges"]
        assert sorted(json.loads(e["node"]["payload"])["text"] for e in texts) == sorted(f"w{i}" for i in range(WRITES))

        # A worker killed is replaced; the other serves meanwhile, and the replacement catches up.
        victim = sorted(pids)[0]
        os.kill(victim, signal.SIGKILL)
        assert post(base, "{ head { seq } }")["data"]["head"]["seq"] == WRITES
        replaced = ready_pids(base, 2, timeout=120)  # the survivor and the replacement, once it is ready
        assert victim not in replaced and len(replaced) == 2 and replaced <= children_of(proc.pid), replaced
        assert write(WRITES) == WRITES + 1
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert proc.returncode == 0, (tmp_path / "serve.log").read_text()[-3000:]


def test_two_workers_holding_no_knowledge_state_write_knowledge_through_both(backend: Backend, tmp_path: Path) -> None:
    # GRAPH_SERVICE_KNOWLEDGE=graph: each worker plans and applies its knowledge writes on what it reads of the
    # graph and takes the other's as the graph holds them; concurrent adds and a retraction under them land once
    # each, and the graph both workers read is the journal's replay.
    proc, base = start_serving(backend, tmp_path, "--workers", "2", env_extra={"GRAPH_SERVICE_KNOWLEDGE": "graph"})
    add = 'mutation($i: ItemInput!) { addItem(item: $i) { id status } }'

    def fact(subject: str, premises: list[str]) -> str:
        item = {"kind": "fact", "body": {"s": subject, "r": "holds", "o": True}, "source": "person",
                "derivedFrom": premises or None}
        answer = post(base, add, {"i": item})
        assert "errors" not in answer, answer
        return answer["data"]["addItem"]["id"]

    try:
        wait_ready(proc, base, tmp_path)
        assert len(ready_pids(base, 2)) == 2
        roots = [fact(f"root-{i}", []) for i in range(3)]
        with ThreadPoolExecutor(8) as pool:
            derived = list(pool.map(lambda i: fact(f"derived-{i}", [roots[i % 3]]), range(24)))
        gone = post(base, 'mutation($i: String!) { retractItem(id: $i, why: "wrong") { seq } }', {"i": roots[0]})
        assert "errors" not in gone, gone
        statuses = ("query(" + ", ".join(f"$i{n}: String!" for n in range(24)) + ") { "
                    + " ".join(f"i{n}: item(id: $i{n}) {{ status }}" for n in range(24)) + " }")
        for _ in range(6):  # whichever worker answers
            answer = post(base, "{ head { seq } verify { ok projectionOk } }")
            assert answer["data"] == {"head": {"seq": 28}, "verify": {"ok": True, "projectionOk": True}}, answer
            shown = post(base, statuses, {f"i{n}": item for n, item in enumerate(derived)})["data"]
            assert [shown[f"i{n}"]["status"] == "retracted" for n in range(24)] == [n % 3 == 0 for n in range(24)]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert proc.returncode == 0, (tmp_path / "serve.log").read_text()[-3000:]


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
def test_the_workers_and_the_embedded_server_end_with_a_parent_killed(backend: Backend, tmp_path: Path) -> None:
    proc, base = start_serving(backend, tmp_path, "--workers", "2")
    wait_ready(proc, base, tmp_path)
    everything = children_of(proc.pid)  # the workers, the embedded server, multiprocessing's tracker
    assert ready_pids(base, 2) <= everything and len(everything) >= 3
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() and _alive(p) for p in everything):
        time.sleep(0.1)
    assert not [p for p in everything if Path(f"/proc/{p}").exists() and _alive(p)], "orphans kept running"
    assert probe(f"{base}/healthz") is None  # nobody holds the port


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_count_out_of_range_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "graph_service", "serve", "--workers", "0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GRAPH_SERVICE_DATA": str(tmp_path / "data")})
    assert done.returncode == 2 and "workers must be 1 to 64, not 0" in done.stderr
    assert not (tmp_path / "data").exists()  # refused before anything was opened


FAILING_WORKER = '''
import sys
if "--multiprocessing-fork" in sys.argv:  # a worker uvicorn spawned, not the parent
    from graph_service.service import Service

    def start(self, **_: object) -> None:
        raise RuntimeError("this worker cannot open the store")

    Service.start = start
'''


def test_a_worker_that_cannot_open_the_service_stops_the_command(tmp_path: Path) -> None:
    """Not restarted to fail forever: the parent stops every worker and exits non-zero, saying why."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(FAILING_WORKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_"))}
    env.update(GRAPH_SERVICE_DATA=str(tmp_path / "data"), GRAPH_SERVICE_PORT=str(free_port()),
               PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(Path.cwd()), env.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "graph_service", "serve", "--workers", "2"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "this worker cannot open the store" in done.stderr
    assert "a worker could not open the service" in done.stderr
