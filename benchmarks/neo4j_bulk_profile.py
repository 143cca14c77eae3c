"""Where a bulk load's server time goes, and the bulk load of one source tree against another's.

    .venv/bin/python benchmarks/neo4j_bulk_profile.py [--size 10000] [--rounds 2] [--backend neo4j]
        [--tree new=. --tree old=/tmp/neo4j-old] [--profile]

For each round and each tree, interleaved (old, new, old, new, ...), a fresh server (a Neo4j 5 of its own,
graph_service.storage.neo4j_server, or the embedded FalkorDB) is bulk-loaded with benchmarks/service_shape's
realistic mix through `Journal.write_batch` (batches of 500) in a child process that imports the tree's
code (PYTHONPATH=<tree>; the tree's own cypher/). The child reports entries/s and the server's processor
time per entry, as service_shape does, and per named statement: calls, wall time and the server's
processor time while it ran (the appender thread runs one statement at a time).

`--profile` (Neo4j): the last full batch's statements also run under PROFILE, and the plan of each is
printed: db hits and rows per operator type, the operators with the most db hits, and the statement's
total db hits per entry. The server's processor time of each projection statement, in order, shows where
one was planned again (a plan costs seconds, an execution tenths), beside the count of plans Neo4j's
debug.log says it discarded as stale (statistics moved).
Ratios come from one run; figures are medians over the rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
BATCH = 500


# ---- the child: one bulk load with the code of one tree -----------------------------------------


def _plan_rows(plan: Any, depth: int = 0) -> list[tuple[int, str, int, int, float, str]]:
    """(depth, operator, rows, db hits, time in ms, details) for a profiled plan, depth first."""
    args = plan.get("args", {})
    rows = [(depth, plan.get("operatorType", "?"), int(plan.get("rows", 0)), int(plan.get("dbHits", 0)),
             float(plan.get("time", args.get("Time", 0))) / 1e6, str(args.get("Details", ""))[:110])]
    for child in plan.get("children", ()):
        rows.extend(_plan_rows(child, depth + 1))
    return rows


def child(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks import service_shape
    from benchmarks.service_shape import LOADER, NEO4J_PASSWORD, NEO4J_USER, mix
    from graph_service import processes
    from graph_service.config import Settings
    from graph_service.service import Service
    from graph_service.storage import queries

    data = Path(args.data)
    # A tree from before the state left memory by default has no LOADING (and holds it in memory anyway).
    loading = getattr(service_shape, "LOADING", {})
    settings = (Settings(data_dir=data, **loading) if not args.uri else
                Settings(data_dir=data, neo4j_uri=args.uri, neo4j_user=NEO4J_USER, neo4j_password=NEO4J_PASSWORD,
                         **loading))
    service = Service.open(settings)
    graph = service.graph
    server_pid = args.server_pid or int((data / "falkordb.pid").read_text())

    def server_cpu() -> float:
        return processes.cpu_seconds(server_pid) or 0.0

    stats: dict[str, list[float]] = {}  # name -> [calls, wall s, server cpu s]
    profiles: list[dict[str, Any]] = []
    project_calls: list[float] = []  # the server's processor time of each projection statement
    profile_from = args.size - args.size % BATCH - BATCH + 1 if args.profile else None
    plain_run = graph.run

    def run(name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        first = (params or {}).get("first")
        profiled = (profile_from is not None and first == profile_from and graph.backend == "neo4j"
                    and name != "head_read")
        c0, t0 = server_cpu(), time.perf_counter()
        if profiled:
            records, summary, _ = graph._driver.execute_query(  # type: ignore[attr-defined]
                "PROFILE " + queries.load(name), params or {}, database_="neo4j")
            rows = [r.data() for r in records]
            profiles.append({"name": name, "entries": params["last"] - params["first"] + 1,  # type: ignore[index]
                             "plan": _plan_rows(summary.profile),
                             "available_ms": summary.result_available_after,
                             "consumed_ms": summary.result_consumed_after})
        else:
            rows = plain_run(name, params)
        wall, cpu = time.perf_counter() - t0, server_cpu() - c0
        entry = stats.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += wall
        entry[2] += cpu
        if name.startswith("project_"):
            project_calls.append(cpu)
        return rows

    graph.run = run  # type: ignore[method-assign]
    try:
        c0, own0, t0 = server_cpu(), time.process_time(), time.perf_counter()
        written = service.journal.write_batch(LOADER, mix(service, args.size, args.seed), batch_size=BATCH)
        seconds = time.perf_counter() - t0
        server, own = server_cpu() - c0, time.process_time() - own0
        head = plain_run("head_read")[0]
    finally:
        service.close()
    return {"written": written, "seconds": seconds, "server_cpu": server, "own_cpu": own,
            "projected": head["projected"], "seq": head["seq"], "stats": stats, "profiles": profiles,
            "project_calls": project_calls}


# ---- the parent: fresh servers, interleaved trees ------------------------------------------------


def load_once(tree: Path, args: argparse.Namespace, tmp: Path, tag: str) -> dict[str, Any]:
    from graph_service.storage.neo4j_server import LocalNeo4j, free_port

    home = tmp / tag
    data = home / "data"
    data.mkdir(parents=True)
    command = [sys.executable, str(HERE), "--child", "--size", str(args.size), "--seed", str(args.seed),
               "--data", str(data)]
    if args.profile:
        command.append("--profile")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_"))}
    env["PYTHONPATH"] = str(tree)
    server = None
    if args.backend == "neo4j":
        server = LocalNeo4j(home / "neo4j", bolt_port=free_port(), http_port=None, die_with_parent=True)
        server.start()
        command += ["--uri", server.uri, "--server-pid", str(server.pid)]
    try:
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"the load with {tree} failed:\n{done.stderr[-4000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if server is not None:
            debug = (home / "neo4j" / "logs" / "debug.log").read_text(errors="replace")
            result["stale_plans"] = debug.count("Discarded stale query from the query cache")
        return result
    finally:
        if server is not None:
            server.stop()


def report(results: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> None:
    print(f"bulk load of {args.size:,} entries of the service_shape mix on {args.backend}, "
          f"{args.rounds} round(s), trees interleaved")
    medians: dict[str, tuple[float, float]] = {}
    for name, runs in results.items():
        rates = [r["written"] / r["seconds"] for r in runs]
        cpu = [r["server_cpu"] / r["written"] * 1e3 for r in runs]
        own = [r["own_cpu"] / r["written"] * 1e3 for r in runs]
        medians[name] = (statistics.median(rates), statistics.median(cpu))
        print(f"  {name}: entries/s {', '.join(f'{x:,.0f}' for x in rates)} (median {medians[name][0]:,.0f}); "
              f"server CPU ms/entry {', '.join(f'{x:.3f}' for x in cpu)} (median {medians[name][1]:.3f}); "
              f"loader CPU ms/entry median {statistics.median(own):.3f}; projected to "
              f"{runs[-1]['projected']} of {runs[-1]['seq']}")
        per: dict[str, list[float]] = {}
        for r in runs:
            for stmt, (calls, wall, scpu) in r["stats"].items():
                acc = per.setdefault(stmt, [0, 0.0, 0.0])
                acc[0] += calls / len(runs)
                acc[1] += wall / len(runs)
                acc[2] += scpu / len(runs)
        for stmt, (calls, wall, scpu) in sorted(per.items(), key=lambda kv: -kv[1][2]):
            print(f"      {stmt:28s} calls {calls:6.0f}  wall {wall:7.2f} s  server CPU {scpu:7.2f} s "
                  f"({scpu / runs[-1]['written'] * 1e3:.3f} ms/entry)")
        for r in runs:
            calls = ", ".join(f"{c:.2f}" for c in r["project_calls"])
            print(f"      server CPU s per projection statement, in order: {calls}"
                  + (f"; plans Neo4j discarded as stale: {r['stale_plans']}" if "stale_plans" in r else ""))
    names = list(results)
    if len(names) == 2:
        a, b = names
        print(f"  {b} / {a}: entries/s {medians[b][0] / medians[a][0]:.2f}x, server CPU per entry "
              f"{medians[b][1] / medians[a][1]:.2f}x")
    for name, runs in results.items():
        for prof in runs[-1].get("profiles", ()):
            total = sum(row[3] for row in prof["plan"])
            print(f"\n  PROFILE {name} {prof['name']} ({prof['entries']} entries): {total:,} db hits "
                  f"({total / prof['entries']:.1f} per entry), available after {prof['available_ms']} ms, "
                  f"consumed after {prof['consumed_ms']} ms")
            by_op: dict[str, list[int]] = {}
            for _, op, rows, hits, _, _ in prof["plan"]:
                acc = by_op.setdefault(op.split("@")[0], [0, 0, 0])
                acc[0] += 1
                acc[1] += rows
                acc[2] += hits
            print("    by operator: " + ", ".join(f"{op} x{n} ({rows:,} rows, {hits:,} hits)" for op, (n, rows, hits)
                                                 in sorted(by_op.items(), key=lambda kv: -kv[1][2])))
            for _, op, rows, hits, _, details in sorted(prof["plan"], key=lambda r: -r[3])[:args.top]:
                print(f"    {op.split('@')[0]:<30} rows {rows:7,} db hits {hits:9,}  {details}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--backend", choices=("neo4j", "falkordb"), default="neo4j")
    parser.add_argument("--tree", action="append", default=[],
                        help="name=path of a source tree to load with (repeatable; default: this one)")
    parser.add_argument("--profile", action="store_true", help="PROFILE the last full batch's statements")
    parser.add_argument("--top", type=int, default=12, help="operators with the most db hits to show")
    parser.add_argument("--keep", help="a new folder for the servers' stores and logs (default: a temporary one)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--uri", help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args)))
        return 0
    sys.path.insert(0, str(ROOT))
    trees = dict(t.split("=", 1) for t in args.tree) or {"this": str(ROOT)}
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with (contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(prefix="bulk-profile-")
          ) as tmp:
        for round_no in range(args.rounds):
            for name, tree in trees.items():
                result = load_once(Path(tree).resolve(), args, Path(tmp), f"{name}-{round_no}")
                results[name].append(result)
                print(f"round {round_no + 1} {name}: {result['written'] / result['seconds']:,.0f} entries/s, "
                      f"{result['server_cpu'] / result['written'] * 1e3:.3f} ms server CPU per entry",
                      file=sys.stderr, flush=True)
    report(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
