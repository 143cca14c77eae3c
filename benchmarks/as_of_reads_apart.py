"""The as-of list reads, old code against new, on two served copies of one store: each read's own time
and /healthz's latency while it runs.

    python -m benchmarks.as_of_reads_apart --old /tmp/asof-old [--mix 5000] [--rounds 2] [--seed 7]

Loads a store of the as-of tests' mix (benchmarks.service_shape.mix with flags, disputes, ticks,
questions and answers: tests.integration.test_knowledge_as_of._history) on an embedded FalkorDB, copies
it, and serves one copy with the code at --old and the other with this tree, side by side (`serve`, as
`make serve` does). Then, `--rounds` times, for each read and old then new in turn: the read as of the
middle of the journal, with /healthz asked every 10 ms while it runs. Prints every measurement and, per
read, the medians old and new and their ratio. Absolute times on a shared machine mean little; the
ratios of interleaved runs are the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.service_shape import LOADING, Served, healthz_while, serve, stop
from graph_service.config import Settings
from graph_service.questions import plans
from graph_service.service import Service

READS = {
    "disputes": "query($n: Long) { disputes(first: 50, asOf: $n) { totalCount edges { cursor node { id key } } } }",
    "flags": "query($n: Long) { flags(first: 50, asOf: $n) { totalCount edges { cursor node { id pending } } } }",
    "questions": "query($n: Long) { questions(first: 50, asOf: $n) { totalCount edges { node { id answered } } } }",
    "unknowns": "query($n: Long) { unknowns(first: 50, asOf: $n) { totalCount edges { node { id answered } } } }",
    "items": "query($n: Long) { items(first: 50, asOf: $n) { totalCount edges { node { id status stale } } } }",
    "beliefs": "query($n: Long) { beliefs(first: 50, asOf: $n) { totalCount edges { node { id confidence } } } }",
}


@contextmanager
def _code(tree: Path) -> Iterator[None]:
    """Processes started meanwhile import graph_service from `tree`."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tree)
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def load(data: Path, mix: int, seed: int) -> int:
    """The store of the mix in `data`; its journal's head."""
    from tests.integration.knowledge_histories import write_knowledge_history

    service = Service.open(Settings(data_dir=data, **LOADING))
    try:
        write_knowledge_history(service, mix, seed)
        for i in range(mix // 50):  # declared unknowns, which the mix has none of
            service.journal.write("ann", lambda i=i: plans.plan_declare(service.state, f"site-{i % 7}",
                                                                        f"is pump {i} on?", factor=f"pump-{i}"))
        return service.journal.seq
    finally:
        service.close()


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3 if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True, help="a tree of the old code (a git worktree)")
    parser.add_argument("--mix", type=int, default=5000, help="plans of the mix (about 2 entries each)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reads", nargs="+", default=list(READS), choices=list(READS))
    args = parser.parse_args(argv)
    new = Path(__file__).resolve().parent.parent
    root = Path(tempfile.mkdtemp(prefix="as-of-apart-"))
    try:
        started = time.perf_counter()
        head = load(root / "old" / "data", args.mix, args.seed)
        shutil.copytree(root / "old" / "data", root / "new" / "data")
        print(f"store: {head:,} entries, loaded in {time.perf_counter() - started:.0f} s; reads as of {head // 2}",
              flush=True)
        servers: dict[str, Served] = {}
        try:
            for label, tree in (("old", args.old.resolve()), ("new", new)):
                with _code(tree):
                    servers[label] = serve(root / label / "data", root / f"serve-{label}.log")
            figures: dict[tuple[str, str], list[tuple[float, list[float]]]] = {}
            answers: dict[tuple[str, str], Any] = {}
            for name in args.reads:  # a first pass, unrecorded: each server's caches and imports warm
                for label, served in servers.items():
                    answers[(name, label)] = healthz_while(served.base, READS[name], {"n": head // 2})[2] or {}
                if answers[(name, "old")] != answers[(name, "new")] or "errors" in answers[(name, "new")]:
                    raise SystemExit(f"{name}: old and new answer differently: {answers[(name, 'old')]} "
                                     f"{answers[(name, 'new')]}")
            print("round read      code  request_s  healthz_n  p50_ms  p99_ms", flush=True)
            for round_ in range(1, args.rounds + 1):
                for name in args.reads:
                    for label, served in servers.items():
                        seconds, health, _ = healthz_while(served.base, READS[name], {"n": head // 2})
                        figures.setdefault((name, label), []).append((seconds, health))
                        print(f"{round_:5} {name:9} {label:4} {seconds:10.3f} {len(health):10} "
                              f"{_p(health, 0.5):7.1f} {_p(health, 0.99):7.1f}", flush=True)
        finally:
            for served in servers.values():
                stop(served)
        print("\nmedians over the rounds (healthz over every probe of every round), new/old ratio", flush=True)
        print("read      request_s old -> new (x)   healthz p50_ms old -> new   healthz p99_ms old -> new")
        for name in args.reads:
            req = {label: statistics.median(s for s, _ in figures[(name, label)]) for label in servers}
            probes = {label: [h for _, hs in figures[(name, label)] for h in hs] for label in servers}
            print(f"{name:9} {req['old']:7.3f} -> {req['new']:6.3f} ({req['new'] / req['old']:4.2f}x)   "
                  f"{_p(probes['old'], 0.5):7.1f} -> {_p(probes['new'], 0.5):6.1f}          "
                  f"{_p(probes['old'], 0.99):7.1f} -> {_p(probes['new'], 0.99):6.1f}")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
