"""What one statement and one journaled write cost on Neo4j, with the code of one tree against another's.

    .venv/bin/python -m benchmarks.neo4j_round_trips [--tree new=. --tree old=/tmp/old] [--rounds 4] [--count 300]
        [--uri bolt://... --user U --password P]

One Neo4j 5 server of its own (graph_service.storage.neo4j_server), or the one `--uri` names (its store is written
to), serves every round. In each round each tree,
in turn (old, new, new, old, ...), runs a child process that imports its code (PYTHONPATH=<tree>) and opens the
store as the service does (`Service.open`, holding no state): `--count` times, interleaved, a one-node read
(`head_read`), a one-node write (`bench_raw_write`), a journaled note and a journaled fact. The child prints the
medians; the figures are the medians over the rounds, and the ratio is each tree's against the first.
Why: the adapter's way of running a statement (a managed transaction, or one auto-committed) is a round trip
more or less on every statement the service runs.
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
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("read", "write", "note", "fact")


def child(uri: str, user: str, password: str, count: int, tag: str) -> dict[str, float]:
    """Medians in ms of each kind of round trip, `count` of each, interleaved."""
    from graph_service.config import Settings
    from graph_service.journal.notes import plan_note
    from graph_service.knowledge import planning
    from graph_service.service import Service

    with tempfile.TemporaryDirectory() as data:
        service = Service.open(Settings(data_dir=Path(data), neo4j_uri=uri, neo4j_user=user, neo4j_password=password))
        try:
            service.start()
            journal, graph = service.journal, service.graph
            samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
            for i in range(count):
                raw = {"kind": "fact", "body": {"s": f"{tag}-{i}", "r": "is", "o": "on"}, "source": "bench"}
                steps = (("read", partial(graph.run, "head_read")),
                         ("write", partial(graph.run, "bench_raw_write", {"id": f"probe-{i % 100}", "at": i})),
                         ("note", partial(journal.write, "bench", partial(plan_note, f"{tag} {i}"))),
                         ("fact", partial(journal.write, "bench", partial(service.plan_knowledge, partial(
                             planning.plan_add, raw=raw, by="bench")))))
                for kind, step in steps:
                    started = time.perf_counter()
                    step()
                    samples[kind].append(time.perf_counter() - started)
            return {kind: statistics.median(values) * 1e3 for kind, values in samples.items()}
        finally:
            service.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", default=[], help="name=path of a source tree (default: new=.)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--uri", help="a running Neo4j 5 to measure on (default: one of its own)")
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--password", default="neo4j")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.uri, args.user, args.password, args.count, args.child)))
        return 0
    from graph_service.storage.neo4j_server import LocalNeo4j, free_port

    trees = dict(spec.split("=", 1) for spec in args.tree) or {"new": "."}
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as home:
        server = None if args.uri else LocalNeo4j(Path(home) / "neo4j", bolt_port=free_port(), http_port=None).start()
        uri = args.uri or server.uri  # type: ignore[union-attr]
        try:
            for round_ in range(args.rounds):
                order = list(trees.items()) if round_ % 2 == 0 else list(reversed(trees.items()))
                for name, tree in order:
                    path = Path(tree).resolve()
                    env = {**os.environ, "PYTHONPATH": str(path)}
                    done = subprocess.run([sys.executable, "-m", "benchmarks.neo4j_round_trips", "--uri", uri,
                                           "--user", args.user, "--password", args.password, "--count", str(args.count),
                                           "--child", f"{name}-{round_}"],
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
    print(f"Neo4j round trips, ms (medians of {args.rounds} rounds of {args.count}; ratio against {first}):")
    for name, kinds in medians.items():
        print(f"  {name:>8}: " + ", ".join(f"{kind} {kinds[kind]:.2f} ({kinds[kind] / medians[first][kind]:.2f}x)"
                                            for kind in KINDS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
