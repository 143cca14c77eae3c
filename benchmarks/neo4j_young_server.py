"""What a young Neo4j server costs the service: a start's schema, and the statements it plans on first sight.

    .venv/bin/python -m benchmarks.neo4j_young_server [--rounds 8] [--writes 60] [--uri bolt://... --user U
        --password P]

On a Neo4j 5 server of its own (graph_service.storage.neo4j_server), started for the run, or the one `--uri` names
(its store is written to; a server that has planned these statements before is no longer young):

1. The first set-up of the store's schema, then `--rounds` starts on it, interleaved: the check a start makes
   (`Neo4jGraph.setup_schema`: one statement when every index is online) against the whole idempotent set-up.
2. `item_reads_upto`, its ids in a map as it is written, against the same text with the ids as a list parameter:
   the first call at each list size (Neo4j keys its plan cache on a list's size class), then a second.
3. A service's first `--writes` knowledge writes on the store (facts on earlier facts, every sixth a retraction):
   the first, then the total, median and slowest of the rest.

Why: on a server the service has not used, each statement is planned the first time it is seen; these are the
figures a team running the service in a fresh container for its tests meets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from graph_service.config import Settings
from graph_service.from_graph.knowledge_region import ASSERTION_OPS, RESOLUTION_OPS
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.storage import queries
from graph_service.storage.neo4j_adapter import Neo4jGraph
from graph_service.storage.neo4j_server import LocalNeo4j, free_port

SIZES = (2, 3, 11, 12, 128, 129)


def schema_starts(graph: Neo4jGraph, rounds: int) -> None:
    started = time.perf_counter()
    graph.setup_schema()
    print(f"schema: the first set-up {time.perf_counter() - started:.2f} s")
    checked, whole = [], []
    online = graph.schema_online
    for _ in range(rounds):
        started = time.perf_counter()
        graph.setup_schema()
        checked.append(time.perf_counter() - started)
        graph.schema_online = lambda: False  # type: ignore[method-assign]
        started = time.perf_counter()
        graph.setup_schema()
        whole.append(time.perf_counter() - started)
        graph.schema_online = online  # type: ignore[method-assign]
    check, again = statistics.median(checked), statistics.median(whole)
    print(f"schema at a start (medians of {rounds}): checked {check * 1e3:.1f} ms, set up again {again * 1e3:.1f} ms "
          f"({again / check:.1f}x)")


def list_sizes(graph: Neo4jGraph) -> None:
    mapped = queries.load("item_reads_upto")
    listed = mapped.replace("$asked.ids", "$ids")  # the same statement with the ids as a list parameter
    graph.run("bench_raw_write", {"id": "young-server", "at": 0})  # a store with something in it

    def first_and_again(text: str, size: int, as_map: bool) -> tuple[float, float]:
        ids = [f"young-{i}" for i in range(size)]
        params: dict[str, Any] = {"upto": 1, "payload_ops": list(ASSERTION_OPS), "resolution_ops": list(RESOLUTION_OPS),
                                  **({"asked": {"ids": ids}} if as_map else {"ids": ids})}
        took = []
        for _ in range(2):
            started = time.perf_counter()
            with graph._driver.session() as session:
                session.run(text, params).consume()
            took.append((time.perf_counter() - started) * 1e3)
        return took[0], took[1]

    first_and_again(mapped, 1, True)
    first_and_again(listed, 1, False)
    totals = {True: 0.0, False: 0.0}
    for at, size in enumerate(SIZES):
        cells = []
        for as_map in (True, False) if at % 2 == 0 else (False, True):
            first, again = first_and_again(mapped if as_map else listed, size, as_map)
            totals[as_map] += first
            cells.append(f"{'map' if as_map else 'list'} {first:.0f} then {again:.0f} ms")
        print(f"item_reads_upto, {size} ids: " + ", ".join(cells))
    print(f"item_reads_upto, the first calls summed: map {totals[True]:.0f} ms, list {totals[False]:.0f} ms")


def first_writes(uri: str, user: str, password: str, writes: int) -> None:
    with tempfile.TemporaryDirectory() as keys:
        service = Service.open(Settings(data_dir=Path(keys), neo4j_uri=uri, neo4j_user=user, neo4j_password=password))
        try:
            rng, items, took = random.Random(7), [], []
            tag = f"{time.time_ns()}"  # facts of their own on a store that has some
            for i in range(writes):
                started = time.perf_counter()
                if i % 6 == 5 and items:
                    gone = items.pop(rng.randrange(len(items)))
                    service.journal.write("bench", lambda gone=gone: service.plan_knowledge(
                        lambda k: planning.plan_retract(k, gone, "bench")))
                else:
                    raw: dict[str, Any] = {"kind": "fact", "body": {"s": f"young-{tag}-{i}", "r": "colour", "o": i},
                                           "source": "person"}
                    if items:
                        raw["derived_from"] = rng.sample(items, min(len(items), rng.choice((1, 2, 3))))
                    written = service.journal.write("bench", lambda raw=raw: service.plan_knowledge(
                        lambda k: planning.plan_add(k, raw, by="person")))
                    if written.result.get("id") is not None:
                        items.append(written.result["id"])
                took.append(time.perf_counter() - started)
        finally:
            service.close()
    rest = took[1:] or [0.0]
    print(f"knowledge writes: the first {took[0]:.2f} s; the next {len(took) - 1}: {sum(rest):.2f} s in all, median "
          f"{statistics.median(rest) * 1e3:.0f} ms, slowest {max(rest) * 1e3:.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--writes", type=int, default=60)
    parser.add_argument("--uri", help="a running Neo4j 5 to measure on (default: one of its own)")
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--password", default="neo4j")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        server = None if args.uri else LocalNeo4j(Path(home) / "neo4j", bolt_port=free_port(), http_port=None).start()
        uri = args.uri or server.uri  # type: ignore[union-attr]
        try:
            graph = Neo4jGraph(uri, args.user, args.password)
            try:
                schema_starts(graph, args.rounds)
                list_sizes(graph)
            finally:
                graph.close()
            first_writes(uri, args.user, args.password, args.writes)
        finally:
            if server is not None:
                server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
