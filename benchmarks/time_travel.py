"""Time-travel benchmark (issue 11): a belief read as of a past position against the same read now.

    .venv/bin/python -m benchmarks.time_travel [--entries 10000] [--reads 200] [--seed 7]

Loads a store of the realistic mix (benchmarks.service_shape.mix) through the bulk path on an embedded
FalkorDB, then reads random beliefs over GraphQL (in-process, ASGI), each as of a random position after
its creation and now, interleaved, and prints the medians and their ratio. The bar (issue 11): an asOf
read at most 2x the same read at the head.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.service_shape import LOADER, mix
from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.service import Service

READ = """query($id: String!, $n: Long) { belief(id: $id, asOf: $n) {
  id status confidence evidence { id weight retracted } breakdown { confidence } families { id liveRows } } }"""


async def _reads(service: Service, reads: int, seed: int) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    beliefs = sorted(service.state.beliefs.beliefs.items())
    head = service.journal.seq
    app = create_app(service.settings, service=service)
    now, then = [], []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        for _ in range(reads):
            belief_id, record = rng.choice(beliefs)
            position = rng.randint(record.node_props()["created_seq"], head)
            for n, sink in ((None, now), (position, then)):
                started = time.perf_counter()
                answer = (await client.post("/graphql", json={"query": READ, "variables": {"id": belief_id, "n": n}}))
                sink.append(time.perf_counter() - started)
                if "errors" in answer.json():
                    raise RuntimeError(answer.json()["errors"])
    return now, then


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="time-travel-") as tmp:
        service = Service.open(Settings(data_dir=Path(tmp) / "data"))
        try:
            started = time.perf_counter()
            written = service.journal.write_batch(LOADER, mix(service, args.entries, args.seed))
            print(f"loaded {written:,} entries in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            now, then = asyncio.run(_reads(service, args.reads, args.seed))
        finally:
            service.close()
    ratio = statistics.median(then) / statistics.median(now)
    print(f"belief read over GraphQL at {written:,} entries: now {statistics.median(now) * 1e3:.2f} ms, as of a "
          f"past position {statistics.median(then) * 1e3:.2f} ms (medians of {args.reads}, interleaved): {ratio:.2f}x")
    print(f"  bar: an asOf read <= 2x the same read at the head: {'met' if ratio <= 2 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
