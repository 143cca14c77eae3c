"""Time-travel benchmark (issue 11): a belief read and an item read as of a past position against the
same reads now.

    .venv/bin/python -m benchmarks.time_travel [--entries 10000] [--reads 200] [--seed 7]

Loads a store of the realistic mix (benchmarks.service_shape.mix) through the bulk path on an embedded
FalkorDB, then reads random beliefs and random items over GraphQL (in-process, ASGI), each as of a
random position after its creation and now, interleaved, and prints the medians and their ratios. The
bar (issue 11): an asOf read at most 2x the same read at the head.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import httpx

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.domain import Draft
from graph_service.journal.notes import plan_note
from graph_service.service import Service

READ = """query($id: String!, $n: Long) { belief(id: $id, asOf: $n) {
  id status confidence evidence { id weight retracted } breakdown { confidence } families { id liveRows } } }"""

ITEM_READ = """query($id: String!, $n: Long) { item(id: $id, asOf: $n) {
  id status source rank support premises summary why learnedAt confirmedAt promoted } }"""

T = TypeVar("T")
Timings = dict[str, tuple[list[float], list[float]]]


async def _reads(service: Service, reads: int, seed: int) -> Timings:
    """{what: (now, then)}: each read's round trips at the head and as of a random position since the node
    was first written, interleaved."""
    rng = random.Random(seed)
    head = service.journal.seq
    chosen = {
        "belief": (READ, sorted((b, r.node_props()["created_seq"]) for b, r in service.state.beliefs.beliefs.items())),
        "item": (ITEM_READ, sorted((i, r.learned_at) for i, r in service.state.knowledge.items.items())),
    }
    timings: Timings = {what: ([], []) for what in chosen}
    app = create_app(service.settings, service=service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        for _ in range(reads):
            for what, (query, nodes) in chosen.items():
                node_id, first = rng.choice(nodes)
                position = rng.randint(first, head)
                now, then = timings[what]
                for n, sink in ((None, now), (position, then)):
                    started = time.perf_counter()
                    answer = await client.post("/graphql", json={"query": query, "variables": {"id": node_id, "n": n}})
                    sink.append(time.perf_counter() - started)
                    if "errors" in answer.json():
                        raise RuntimeError(answer.json()["errors"])
    return timings


def _with_notes(plans: Iterator[Callable[[], Draft]], entries: int, notes: int) -> Iterator[Callable[[], Draft]]:
    """The plans with `notes` note plans spread evenly among them (after each plan, its share)."""
    written = 0
    for n, plan in enumerate(plans, 1):
        yield plan
        due = notes * n // max(1, entries)
        while written < due:
            written += 1
            yield lambda i=written: plan_note(f"filler {i}")


def _with_progress(plans: Iterator[T], started: float, every: int = 50_000) -> Iterator[T]:
    """The plans unchanged, saying on stderr how far the load has come (a 10^6 load takes many minutes)."""
    for n, plan in enumerate(plans, 1):
        if n % every == 0:
            print(f"  planned {n:,} entries in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        yield plan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--notes", type=int, default=0,
                        help="notes interleaved evenly with the mix: a journal of --entries + --notes entries whose "
                             "nodes are the mix's (a long journal at a cost a shared machine can pay)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="time-travel-") as tmp:
        service = Service.open(Settings(data_dir=Path(tmp) / "data", **LOADING))
        try:
            started = time.perf_counter()
            plans = _with_progress(_with_notes(mix(service, args.entries, args.seed), args.entries, args.notes),
                                   started)
            written = service.journal.write_batch(LOADER, plans)
            print(f"loaded {written:,} entries in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            timings = asyncio.run(_reads(service, args.reads, args.seed))
        finally:
            service.close()
    for what, (now, then) in timings.items():
        ratio = statistics.median(then) / statistics.median(now)
        print(f"{what} read over GraphQL at {written:,} entries: now {statistics.median(now) * 1e3:.2f} ms, as of a "
              f"past position {statistics.median(then) * 1e3:.2f} ms (medians of {args.reads}, interleaved): "
              f"{ratio:.2f}x")
        print(f"  bar: an asOf read <= 2x the same read at the head: {'met' if ratio <= 2 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
