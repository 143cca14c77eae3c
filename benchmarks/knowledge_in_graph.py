"""A service that holds no knowledge state (GRAPH_SERVICE_KNOWLEDGE=graph), one that holds no belief layer
either (and GRAPH_SERVICE_BELIEFS=graph), and one that holds no domain's state at all (and GRAPH_SERVICE_STREAM and
GRAPH_SERVICE_QUESTIONS=graph: a start replays nothing), against one that holds them all in memory: its start, its
memory, and the cost of a knowledge write, a belief write and a stream and a statement write, on the same store.

    .venv/bin/python -m benchmarks.knowledge_in_graph [--sizes 10000] [--rounds 3] [--writes 40]

For each size a store of the realistic mix (benchmarks.service_shape.mix) is bulk-loaded once. Then, for each
round, each mode opens its own copy of that store in a process of its own (the two modes interleaved, the order
alternating by round): the start (Service.start: the replay, after the embedded server has loaded), the
process's RSS after it, and `--writes` knowledge writes in process, each timed: a fact derived from two recent
items, and the retraction of a live item (with what rests on it); and as many belief writes: evidence added to a
belief the mix made; and as many boundaries of an observer (three subjects in view, one transfer) and statements
made to it. And the public bulk path in each mode: the
store's journal exported once (`graph_service export`), then loaded into an empty store by `graph_service load`
in each mode, interleaved likewise: entries a second and the loading process's peak RSS. Medians over the
rounds, and the ratio of each mode's to the memory mode's, measured in the same run. The modes: `memory`, `graph`
(the knowledge state in the graph), `graph+beliefs` (the belief layer too) and `stateless` (the stream, the
statements and the questions too: no domain's state in memory, so a start replays nothing). `--skip-load` leaves
the public load out (for the larger sizes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.config import Settings
from graph_service.knowledge import planning
from graph_service.service import Service

MODES = ("memory", "graph", "graph+beliefs", "stateless")


def settings_of(mode: str) -> dict[str, str]:
    """The Settings fields of a mode: where the knowledge state, the belief layer, the stream and the questions
    are held (`stateless`: none of them in memory, so a start replays nothing)."""
    return {"knowledge": "memory" if mode == "memory" else "graph",
            "beliefs": "graph" if mode in ("graph+beliefs", "stateless") else "memory",
            "stream": "graph" if mode == "stateless" else "memory",
            "questions": "graph" if mode == "stateless" else "memory"}


def env_of(mode: str) -> dict[str, str]:
    return {f"GRAPH_SERVICE_{field.upper()}": held for field, held in settings_of(mode).items()}


def rss_mb() -> float:
    """This process's resident set now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(mode: str, data: Path, writes: int) -> dict[str, Any]:
    """Open the store in `mode`, time its start, then `writes` adds, retractions, evidence rows, boundaries of an
    observer and statements to it, each timed (ms)."""
    service = Service.connect(Settings(data_dir=data, **settings_of(mode)))
    try:
        started = time.perf_counter()
        service.start()
        start_s = time.perf_counter() - started
        assert service.knowledge_in_graph == (mode != "memory")
        assert service.beliefs_in_graph == (mode in ("graph+beliefs", "stateless"))
        assert service.holds_nothing == (mode == "stateless")
        rss = rss_mb()
        # A start that replayed nothing checks the chain apart (journal.background_audit): its time is reported,
        # and the writes are timed once it is done (while it runs they share the machine and the server with it).
        checking = service.journal.audit
        if checking is not None:
            checking.done.wait(3600)
        chain_check_s = time.perf_counter() - started
        ids = [r["id"] for r in service.graph.run("item_ids_upto", {"upto": service.journal.seq})]
        beliefs = [f"b{r['seq']}.1" for r in service.graph.run(  # the belief each creation made first
            "entries_of_op_upto", {"op": "belief.create", "upto": service.journal.seq})]
        rng = random.Random(7)  # the same choices in every mode: the stores are the same
        adds, retractions, evidence, boundaries, said = [], [], [], [], []
        service.journal.write("bench", lambda: service.state.stream.plan("observer.declare", {"observer": "bench-eye"}))
        for i in range(writes):
            live = [x for x in ids[-400:] if service.state.item_status(x) not in (None, "retracted")]
            raw = {"kind": "fact", "body": {"s": f"bench-{i}", "r": "colour", "o": "v1"}, "source": "person",
                   "derived_from": rng.sample(live[-50:], 2)}
            t = time.perf_counter()
            service.journal.write("bench", lambda raw=raw: service.plan_knowledge(
                lambda k: planning.plan_add(k, raw, by="bench")))
            adds.append((time.perf_counter() - t) * 1e3)
            target = rng.choice(live)
            t = time.perf_counter()
            service.journal.write("bench", lambda target=target: service.plan_knowledge(
                lambda k: planning.plan_retract(k, target, "benchmark")))
            retractions.append((time.perf_counter() - t) * 1e3)
            row = {"belief": rng.choice(beliefs), "weight": 0.6, "family": f"bench-{i % 5}",
                   "direction": rng.choice(("for", "against"))}
            t = time.perf_counter()
            service.journal.write("bench", lambda row=row: service.plan_beliefs("evidence.add", row))
            evidence.append((time.perf_counter() - t) * 1e3)
            boundary = {"observer": "bench-eye", "tick": i, "in_view": [str(n) for n in range(i % 7, i % 7 + 3)],
                        "transfers": [{"kind": "given", "subject": str(i % 4), "magnitude": 3}]}
            t = time.perf_counter()
            service.journal.write("bench", lambda b=boundary: service.state.stream.plan("stream.presence", b))
            boundaries.append((time.perf_counter() - t) * 1e3)
            statement = {"text": f"the rock {i} is heavy", "speaker": f"bench-{i % 3}", "tick": i, "to": "bench-eye"}
            t = time.perf_counter()
            service.journal.write("bench", lambda st=statement: service.state.statements.plan("statement.say", st))
            said.append((time.perf_counter() - t) * 1e3)
        return {"start_s": start_s, "rss_mb": rss, "add_ms": statistics.median(adds),
                "retract_ms": statistics.median(retractions), "retract_p90_ms": _p90(retractions),
                "chain_check_s": chain_check_s if checking is not None else math.nan,
                "evidence_ms": statistics.median(evidence), "boundary_ms": statistics.median(boundaries),
                "say_ms": statistics.median(said)}
    finally:
        service.close()


def _p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))]


def build(size: int, root: Path, seed: int) -> Path:
    """A store of `size` entries of the mix, bulk-loaded with the knowledge state in memory (as `load` does)."""
    data = root / f"store-{size}"
    service = Service.open(Settings(data_dir=data, **LOADING))
    try:
        service.journal.write_batch(LOADER, mix(service, size, seed), batch_size=500)
    finally:
        service.close()
    return data


def cli(data: Path, mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`graph_service ARGS` on the store in `data`, the knowledge in `mode`; raises if it fails."""
    env = {**os.environ, "GRAPH_SERVICE_DATA": str(data), **env_of(mode)}
    out = subprocess.run([sys.executable, "-m", "graph_service", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"graph_service {' '.join(args)} failed:\n{out.stderr[-3000:]}")
    return out


def load_child(mode: str, exported: Path, data: Path) -> dict[str, Any]:
    """`graph_service load` in `mode` into the empty store `data`, run in this process (the command's own code,
    its output sent to stderr): entries a second, and this process's peak RSS (the embedded server is another)."""
    os.environ.update({"GRAPH_SERVICE_DATA": str(data), **env_of(mode)})
    from graph_service import cli as command

    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        if command.main(["load", str(exported)]) != 0:
            raise RuntimeError(f"graph_service load failed in {mode} mode")
    seconds = time.perf_counter() - started
    loaded = sum(1 for line in exported.open() if line.strip())
    return {"load_per_s": loaded / seconds,
            "load_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(size: int, args: argparse.Namespace, root: Path) -> None:
    built = build(size, root, args.seed)
    exported = root / f"journal-{size}.jsonl"
    cli(built, "memory", "export", "--output", str(exported))
    got: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for round_no in range(args.rounds):
        for mode in MODES[round_no % len(MODES):] + MODES[:round_no % len(MODES)]:  # each first in turn
            loading = {"load_per_s": math.nan, "load_peak_rss_mb": math.nan}
            if not args.skip_load:
                into = root / f"load-{mode}-{round_no}"
                out = subprocess.run([sys.executable, "-m", "benchmarks.knowledge_in_graph", "--load-child", mode,
                                      str(exported), str(into)], capture_output=True, text=True)
                if out.returncode != 0:
                    raise RuntimeError(f"the {mode} load failed:\n{out.stderr[-3000:]}")
                loading = json.loads(out.stdout.strip().splitlines()[-1])
                shutil.rmtree(into, ignore_errors=True)
            copy = root / f"copy-{mode}-{round_no}"
            shutil.copytree(built, copy, ignore=shutil.ignore_patterns("*.sock", "*.pid", "service.lock"))
            out = subprocess.run([sys.executable, "-m", "benchmarks.knowledge_in_graph", "--child", mode, str(copy),
                                  "--writes", str(args.writes)], capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"the {mode} child failed:\n{out.stderr[-3000:]}")
            got[mode].append({**json.loads(out.stdout.strip().splitlines()[-1]), **loading})
            shutil.rmtree(copy, ignore_errors=True)
    print(f"{size:,} entries, {args.rounds} rounds, {args.writes} adds, retractions and evidence rows a round "
          "(medians over the rounds; each mode / memory):")
    for figure, unit in (("start_s", "s"), ("chain_check_s", "s"), ("rss_mb", "MB"), ("add_ms", "ms"),
                         ("retract_ms", "ms"),
                         ("retract_p90_ms", "ms"), ("evidence_ms", "ms"), ("boundary_ms", "ms"), ("say_ms", "ms"),
                         ("load_per_s", "/s"),
                         ("load_peak_rss_mb", "MB")):
        memory = statistics.median(r[figure] for r in got["memory"])
        line = f"  {figure:16} memory {memory:9.2f} {unit:2}"
        for mode in MODES[1:]:
            value = statistics.median(r[figure] for r in got[mode])
            line += f"  {mode} {value:9.2f} {unit:2} {value / memory:6.2f}x"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--skip-load", action="store_true", help="leave the public load out")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DATA"), help=argparse.SUPPRESS)
    parser.add_argument("--load-child", nargs=3, metavar=("MODE", "FILE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load_child:
        mode, exported, data = args.load_child
        print(json.dumps(load_child(mode, Path(exported), Path(data))))
        return 0
    if args.child:
        mode, data = args.child
        print(json.dumps(child(mode, Path(data), args.writes)))
        return 0
    with tempfile.TemporaryDirectory(prefix="knowledge-in-graph-") as tmp:
        for size in args.sizes:
            measure(size, args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
