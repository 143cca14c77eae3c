"""What a knowledge write must read as the store grows: its whole components, read from the graph
(graph_service.from_graph.knowledge_region.knowledge_region), against only what its rules read
(graph_service.knowledge.partial), read from the graph too (knowledge_region.apply_from_graph).

    .venv/bin/python -m benchmarks.knowledge_region [--sizes 10000 30000] [--samples 30] [--rounds 2]

For each size a store of the realistic mix (benchmarks.service_shape.mix: facts with premises from the last
fifty and about 20 entries per subject) is bulk-loaded on the embedded FalkorDB. Then, for the same sample
of retractions a client could write next (live items among the last 200 learned), round by round with the
stores taken in turn: the whole-component region read from the graph (milliseconds, items, statements);
what the retraction's rules read, fetched part by part from the in-memory state (items and reads); and the
same read from the graph (milliseconds, statements), beside the raw one-node read of the same store. Bars:
each gated figure at the largest size within 1.2x of the smallest (medians; the means are printed beside).
Progress goes to stderr, the figures to stdout; exit 1 when a bar fails.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.config import Settings
from graph_service.from_graph.knowledge_region import apply_from_graph, knowledge_region
from graph_service.journal.chain import Entry
from graph_service.knowledge import ops
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.partial import ITEMS, apply_from_whole_state
from graph_service.service import Service

GROWTH_BAR = 1.2


class CountingGraph:
    """The store's graph, counting the statements run through it."""

    def __init__(self, graph: Any) -> None:
        self.graph, self.statements = graph, 0

    def run(self, name: str, params: dict[str, Any] | None = None) -> Any:
        self.statements += 1
        return self.graph.run(name, params)


def retractions(service: Service, samples: int, seed: int) -> list[Entry]:
    """Retractions of live items among the last 200 learned, as the next entry would carry them."""
    knowledge = service.state.knowledge
    recent = [i for i in list(knowledge.items)[-200:] if knowledge.items[i].live()]
    chosen = random.Random(seed).sample(recent, min(samples, len(recent)))
    return [Entry(seq=service.journal.seq + 1, op=ops.RETRACT, by=LOADER, at=0, payload={"id": i, "why": "bench"})
            for i in chosen]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="knowledge-region-"))
    services: dict[int, Service] = {}
    figures: dict[tuple[str, int], list[float]] = defaultdict(list)
    try:
        for size in args.sizes:
            service = Service.open(Settings(data_dir=root / f"store-{size}", **LOADING))
            started = time.perf_counter()
            service.journal.write_batch(LOADER, mix(service, size, args.seed), batch_size=500)
            print(f"loaded {size:,} entries in {time.perf_counter() - started:.0f} s", file=sys.stderr)
            knowledge = service.state.knowledge
            writes = sum(1 for e in service.journal.entries_after(0) if knowledge_ops(e.op, e.payload))
            last = list(knowledge.items)[-1:]
            print(f"{size:>9,} entries: {len(knowledge.items):,} items, the last learned one's component "
                  f"{len(knowledge.component(last)) if last else 0:,}; the in-memory evaluation re-decided "
                  f"{knowledge.order.units_evaluated / max(1, writes):.1f} units per knowledge write over the load")
            services[size] = service
        sample = {size: retractions(service, args.samples, args.seed) for size, service in services.items()}
        for round_ in range(args.rounds):
            for size, service in services.items():
                graph = CountingGraph(service.graph)
                for entry in sample[size]:
                    carried = knowledge_ops(entry.op, entry.payload)
                    before, started = graph.statements, time.perf_counter()
                    region = knowledge_region(graph, carried, upto=service.journal.seq)  # type: ignore[arg-type]
                    figures[("component ms", size)].append((time.perf_counter() - started) * 1e3)
                    component_statements = graph.statements - before
                    started = time.perf_counter()
                    reads = apply_from_whole_state(service.state.knowledge, entry)
                    figures[("reads ms (in memory)", size)].append((time.perf_counter() - started) * 1e3)
                    before, started = graph.statements, time.perf_counter()
                    from_graph = apply_from_graph(graph, entry, upto=service.journal.seq)  # type: ignore[arg-type]
                    figures[("reads ms (graph)", size)].append((time.perf_counter() - started) * 1e3)
                    statements = graph.statements - before
                    started = time.perf_counter()
                    service.graph.run("head_read")
                    figures[("raw read ms", size)].append((time.perf_counter() - started) * 1e3)
                    if round_ == 0:
                        figures[("reads statements (graph)", size)].append(statements)
                        figures[("reads (graph)", size)].append(from_graph.reads)
                        assert from_graph.applied[0].result == reads.applied[0].result, entry
                        figures[("component items", size)].append(len(region.items))
                        figures[("component statements", size)].append(component_statements)
                        figures[("reads items", size)].append(reads.fetched.count(ITEMS))
                        figures[("reads", size)].append(reads.reads)
            print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    finally:
        for service in services.values():
            service.close()
    small, large = min(args.sizes), max(args.sizes)
    failed = False
    for name in ("component items", "component statements", "component ms", "reads items", "reads",
                 "reads ms (in memory)", "reads (graph)", "reads statements (graph)", "reads ms (graph)",
                 "raw read ms"):
        medians = {size: statistics.median(figures[(name, size)]) for size in args.sizes}
        growth = medians[large] / medians[small] if medians[small] else float("inf")
        gated = name in ("component ms", "reads items", "reads", "reads ms (graph)")
        met = growth <= GROWTH_BAR
        failed |= gated and not met
        means = ", ".join(f"{statistics.mean(figures[(name, s)]):,.1f}" for s in args.sizes)
        print(f"{name:>22}: " + ", ".join(f"{medians[s]:,.1f} at {s:,}" for s in args.sizes) + f" (means {means})"
              + f"; {large:,} over {small:,}: {growth:.2f}x"
              + (f" (bar <= {GROWTH_BAR}x: {'met' if met else 'NOT met'})" if gated else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
