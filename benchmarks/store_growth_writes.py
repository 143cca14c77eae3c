"""Does a write cost more as the store grows? Each kind of write of the benchmark mix, on a small store and a
larger one of the same mix, interleaved, as the service runs it (holding no state).

    .venv/bin/python -m benchmarks.store_growth_writes [--sizes 10000 40000] [--count 40] [--seed 7]

Both stores are bulk-loaded through `Journal.write_batch` with the mix of benchmarks.service_shape (facts with
premises on shared keys, beliefs, statements, observations, retractions), each in a data folder of its own; then
both are opened as `make serve` opens them (`Service.open`, every domain held in the graph) and, `--count` times,
one of each write goes to the small store, then to the larger: a note (the journal alone), a statement like the
mix's (its claim becomes evidence on the belief every earlier statement of that text gave evidence to), an
observation, and a fact on a key of the mix. The report gives each write's median on both stores and their ratio,
and the bar of the standards: nothing on a request's path costs more as the store grows (here, within 1.2x).
Progress goes to stderr; the report to stdout; exit 1 when a bar fails.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.config import Settings
from graph_service.domain import Draft
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.statements import OP_SAY
from graph_service.stream import OP_OBSERVE

WITHIN = 1.2  # the larger store's median over the small one's, for each write
KINDS = ("note", "statement", "observation", "fact")


def build(data: Path, size: int, seed: int) -> None:
    """A store of `size` entries of the mix in `data` (planned on the whole state: service_shape.LOADING)."""
    service = Service.open(Settings(data_dir=data, **LOADING))
    try:
        started = time.perf_counter()
        written = service.journal.write_batch(LOADER, mix(service, size, seed), batch_size=500)
        print(f"{size:,} entries loaded in {time.perf_counter() - started:.1f} s ({written:,} written)",
              file=sys.stderr, flush=True)
    finally:
        service.close()


def plans(service: Service, i: int) -> dict[str, Callable[[], Draft]]:
    """One write of each kind, the `i`th: what the mix writes, at ticks past any the mix used."""
    tick = 10**9 + i
    said = {"text": "the deploy failed", "speaker": "cam-1", "tick": tick, "to": None, "extra_claims": [],
            "credibility": 1.0}
    seen = {"observer": "cam-2", "tick": tick, "kind": "seen", "subject": f"thing-{i % 200}", "magnitude": 0,
            "weight": None}
    fact = {"kind": "fact", "body": {"s": f"thing-{i % 50}", "r": "colour", "o": f"growth-{i}"}, "source": "person"}
    state = service.state
    return {
        "note": lambda: plan_note(f"growth {i}"),
        "statement": lambda: state.statements.plan(OP_SAY, said),
        "observation": lambda: state.stream.plan(OP_OBSERVE, seen),
        "fact": lambda: service.plan_knowledge(lambda k: planning.plan_add(k, fact, by="bench")),
    }


def measure(services: list[Service], count: int) -> list[dict[str, float]]:
    """Medians in ms of each kind of write on each store, the stores taking turns write by write."""
    samples: list[dict[str, list[float]]] = [{kind: [] for kind in KINDS} for _ in services]
    for i in range(count):
        for kind in KINDS:
            for service, taken in zip(services, samples, strict=True):
                plan = plans(service, i)[kind]
                started = time.perf_counter()
                service.journal.write("bench", plan)
                taken[kind].append(time.perf_counter() - started)
        print(f"round {i + 1} of {count}", file=sys.stderr, flush=True)
    return [{kind: statistics.median(values) * 1e3 for kind, values in taken.items()} for taken in samples]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[10_000, 40_000], metavar=("SMALL", "LARGE"))
    parser.add_argument("--count", type=int, default=40, help="writes of each kind on each store")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="store-growth-") as root:
        folders = [Path(root) / f"store-{size}" / "data" for size in args.sizes]
        for folder, size in zip(folders, args.sizes, strict=True):
            build(folder, size, args.seed)
        services = [Service.open(Settings(data_dir=folder)) for folder in folders]
        try:
            small, large = measure(services, args.count)
        finally:
            for service in services:
                service.close()
    failed = False
    print(f"medians of {args.count} writes of each kind, the two stores interleaved")
    print(f"{'write':<12} {args.sizes[0]:>10,} {args.sizes[1]:>10,}   ratio")
    for kind in KINDS:
        ratio = large[kind] / small[kind]
        met = ratio <= WITHIN
        failed |= not met
        print(f"{kind:<12} {small[kind]:>8.1f} ms {large[kind]:>7.1f} ms   {ratio:.2f}x  "
              f"bar <= {WITHIN}x: {'met' if met else 'NOT MET'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
