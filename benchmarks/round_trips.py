"""What one statement and one journaled write cost, with the code of one tree against another's.

    .venv/bin/python -m benchmarks.round_trips [--backend neo4j|falkordb] [--tree new=. --tree old=/tmp/old]
        [--rounds 4] [--count 300] [--uri bolt://... --user U --password P]

One store serves every round: on Neo4j, a Neo4j 5 server of its own (graph_service.storage.neo4j_server) or the
one `--uri` names (its store is written to); on FalkorDB, a data folder of its own, its embedded server started by
each child. In each round each tree, in turn (old, new, new, old, ...), runs a child process that imports its code
(PYTHONPATH=<tree>) and opens the store as the service does (`Service.open`, holding no state): `--count` times,
interleaved, a one-node read (`head_read`), a one-node write (`bench_raw_write`), a journaled note, a journaled
fact, its retraction and an observation. The child prints the medians; the figures are the medians over the
rounds, and the ratio is each tree's against the first; then each write in raw writes of its own child.
Why: a statement less in a write, or a cheaper way of running each (on Neo4j, a managed transaction or one
auto-committed), is what one tree against another shows in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("read", "write", "note", "fact", "retraction", "observation")


def child(args: argparse.Namespace, tag: str) -> dict[str, float]:
    """Medians in ms of each kind of round trip, `count` of each, interleaved."""
    from graph_service.config import Settings
    from graph_service.service import Service
    from graph_service.stream import OP_DECLARE

    count = args.count
    with tempfile.TemporaryDirectory() as keys:
        settings = (Settings(data_dir=Path(args.data)) if args.backend == "falkordb" else
                    Settings(data_dir=Path(keys), neo4j_uri=args.uri, neo4j_user=args.user,
                             neo4j_password=args.password))
        service = Service.open(settings)
        try:
            observer = f"camera-{tag}"
            service.journal.write("bench", lambda: service.state.stream.plan(OP_DECLARE, {"observer": observer}))
            samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
            for i in range(count):
                for kind, seconds in _one_of_each(service, f"{tag}-{i}", i, observer).items():
                    samples[kind].append(seconds)
            return {kind: statistics.median(values) * 1e3 for kind, values in samples.items()}
        finally:
            service.close()


def _one_of_each(service: Any, name: str, i: int, observer: str) -> dict[str, float]:
    """The seconds each kind of round trip took, one of each, in order (the retraction is the fact's; the observation
    is `observer`'s, at tick i + 1)."""
    from graph_service.journal.notes import plan_note
    from graph_service.knowledge import planning
    from graph_service.stream import OP_OBSERVE

    journal, graph, took = service.journal, service.graph, {}
    raw = {"kind": "fact", "body": {"s": name, "r": "is", "o": "on"}, "source": "person"}
    started = time.perf_counter()
    graph.run("head_read")
    took["read"], started = time.perf_counter() - started, time.perf_counter()
    graph.run("bench_raw_write", {"id": f"probe-{i % 100}", "at": i})
    took["write"], started = time.perf_counter() - started, time.perf_counter()
    journal.write("bench", lambda: plan_note(name))
    took["note"], started = time.perf_counter() - started, time.perf_counter()
    fact = journal.write("bench", lambda: service.plan_knowledge(lambda k: planning.plan_add(k, raw, by="bench")))
    took["fact"], started = time.perf_counter() - started, time.perf_counter()
    journal.write("bench", lambda: service.plan_knowledge(lambda k: planning.plan_retract(k, fact.result["id"])))
    took["retraction"], started = time.perf_counter() - started, time.perf_counter()
    journal.write("bench", lambda: service.state.stream.plan(OP_OBSERVE, {
        "observer": observer, "tick": i + 1, "kind": "seen", "subject": f"door-{i % 7}"}))
    took["observation"] = time.perf_counter() - started
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", default=[], help="name=path of a source tree (default: new=.)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--backend", choices=("neo4j", "falkordb"), default="neo4j")
    parser.add_argument("--uri", help="a running Neo4j 5 to measure on (default: one of its own)")
    parser.add_argument("--data", help=argparse.SUPPRESS)  # the FalkorDB store's folder, for a child
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--password", default="neo4j")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args, args.child)))
        return 0
    from graph_service.storage.neo4j_server import LocalNeo4j, free_port

    trees = dict(spec.split("=", 1) for spec in args.tree) or {"new": "."}
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as home:
        local = args.backend == "neo4j" and not args.uri
        server = LocalNeo4j(Path(home) / "neo4j", bolt_port=free_port(), http_port=None).start() if local else None
        where = (["--data", str(Path(home) / "data")] if args.backend == "falkordb" else
                 ["--uri", args.uri or server.uri, "--user", args.user, "--password", args.password])  # type: ignore[union-attr]
        try:
            for round_ in range(args.rounds):
                order = list(trees.items()) if round_ % 2 == 0 else list(reversed(trees.items()))
                for name, tree in order:
                    path = Path(tree).resolve()
                    env = {**os.environ, "PYTHONPATH": str(path)}
                    done = subprocess.run([sys.executable, "-m", "benchmarks.round_trips", "--backend", args.backend,
                                           *where, "--count", str(args.count), "--child", f"{name}-{round_}"],
                                          cwd=path, env=env, capture_output=True, text=True, check=False)
                    if done.returncode != 0:
                        print(done.stderr[-3000:], file=sys.stderr)
                        return 1
                    figures[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
        finally:
            if server is not None:
                server.stop()
    first = next(iter(trees))
    medians = {name: {kind: statistics.median(r[kind] for r in rounds) for kind in KINDS}
               for name, rounds in figures.items()}
    print(f"{args.backend} round trips, ms (medians of {args.rounds} rounds of {args.count}; ratio against {first}):")
    for name, kinds in medians.items():
        print(f"  {name:>8}: " + ", ".join(f"{kind} {kinds[kind]:.2f} ({kinds[kind] / medians[first][kind]:.2f}x)"
                                            for kind in KINDS))
    # The server's speed drifts between children (a store that grows, a JVM's collector): each write in raw writes of
    # the same child, then the median over the rounds, compares trees with that taken out.
    in_raw = {name: {kind: statistics.median(r[kind] / r["write"] for r in rounds) for kind in KINDS[2:]}
              for name, rounds in figures.items()}
    print("in raw one-node writes of the same child (medians of the rounds; ratio against the first):")
    for name, kinds in in_raw.items():
        print(f"  {name:>8}: " + ", ".join(f"{kind} {kinds[kind]:.2f} ({kinds[kind] / in_raw[first][kind]:.2f}x)"
                                            for kind in KINDS[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
