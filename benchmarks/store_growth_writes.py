"""Does a write cost more as the store grows? Each kind of write of the benchmark mix, on a small store and a
larger one of the same mix, interleaved, as the service runs it (holding no state).

    .venv/bin/python -m benchmarks.store_growth_writes [--sizes 10000 40000] [--count 40] [--seed 7]

Both stores are bulk-loaded through `Journal.write_batch` with the mix of benchmarks.service_shape (facts with
premises on shared keys, beliefs, statements, observations, retractions), each in a data folder of its own; then
both are opened as `make serve` opens them (`Service.open`, every domain held in the graph) and, `--count` times,
one of each write goes to the small store, then to the larger: a note (the journal alone), a statement like the
mix's (its claim becomes evidence on the belief every earlier statement of that text gave evidence to), an
observation, a fact on a key of the mix, and a fact on a key of the same history in both stores. The report gives
each write's median on both stores and their ratio, and the bar of the standards: nothing on a request's path costs
more as the store grows (here, within 1.2x).

Why two facts. A fact's rules read every item on its key with each item's assertions (an item asserted again keeps
each assertion), and the mix goes on re-asserting facts on its oldest keys as it grows: the keys the first fact
writes on hold more assertions in the larger store (the report counts them), so that write touches more there, and
the standards ask that cost grow with what a write touches, not with the store. The second fact writes on keys that
only this benchmark writes, the same items on them in both stores before it starts (KEY_START), so what it touches
is equal and its ratio is the store's own share; the bar is on it. The first fact's ratio is reported beside the
ratio of what it touched, without a bar.
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
from typing import Any

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.config import Settings
from graph_service.domain import Draft
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.knowledge.items import key_of
from graph_service.service import Service
from graph_service.statements import OP_SAY
from graph_service.stream import OP_OBSERVE

WITHIN = 1.2  # the larger store's median over the small one's, for each write with a bar
KINDS = ("note", "statement", "observation", "fact", "fact, equal key")
NO_BAR = frozenset({"fact"})  # what it touches grows with the store (the module's docstring); reported, no bar
KEYS = 12  # keys each fact writes on, by turns: of the mix (its oldest subjects) and of this benchmark's own
KEY_START = 4  # items on each of this benchmark's own keys before the first measured write, in both stores


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
    fact = {"kind": "fact", "body": {"s": f"thing-{i % KEYS}", "r": "colour", "o": f"growth-{i}"}, "source": "person"}
    even = own_fact(i % KEYS, f"growth-{i}")
    state = service.state
    return {
        "note": lambda: plan_note(f"growth {i}"),
        "statement": lambda: state.statements.plan(OP_SAY, said),
        "observation": lambda: state.stream.plan(OP_OBSERVE, seen),
        "fact": lambda: service.plan_knowledge(lambda k: planning.plan_add(k, fact, by="bench")),
        "fact, equal key": lambda: service.plan_knowledge(lambda k: planning.plan_add(k, even, by="bench")),
    }


def own_fact(key: int, value: str) -> dict[str, Any]:
    """A fact on the `key`th of this benchmark's own keys (a subject the mix never names)."""
    return {"kind": "fact", "body": {"s": f"growth-subject-{key}", "r": "colour", "o": value}, "source": "person"}


def start_own_keys(service: Service) -> None:
    """KEY_START items on each of this benchmark's own keys, each asserted once: the same in every store."""
    for key in range(KEYS):
        for n in range(KEY_START):
            raw = own_fact(key, f"start-{n}")
            service.journal.write("bench", lambda raw=raw: service.plan_knowledge(
                lambda k: planning.plan_add(k, raw, by="bench")))


def touched(service: Service, subjects: list[str]) -> tuple[int, int]:
    """The items on these subjects' colour keys now, and the assertions they hold (what a fact's rules read)."""
    upto = service.journal.seq
    keys = [key_of({"s": s, "r": "colour"}, {}) for s in subjects]
    ids = [row["id"] for row in service.graph.run("items_on_keys_upto", {"asked": {"keys": keys}, "upto": upto})]
    records = KnowledgeRead(service.graph, upto).items(ids)
    return len(records), sum(len(rec.assertions) for rec in records.values())


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
            for service in services:
                start_own_keys(service)
            mix_keys = [f"thing-{k}" for k in range(KEYS)]
            sizes = [touched(service, mix_keys) for service in services]
            small, large = measure(services, args.count)
        finally:
            for service in services:
                service.close()
    failed = False
    print(f"medians of {args.count} writes of each kind, the two stores interleaved")
    print(f"{'write':<16} {args.sizes[0]:>10,} {args.sizes[1]:>10,}   ratio")
    for kind in KINDS:
        ratio = large[kind] / small[kind]
        if kind in NO_BAR:
            (items_small, held_small), (items_large, held_large) = sizes
            verdict = (f"no bar: before the first write its {KEYS} keys held {items_small} items with {held_small} "
                       f"assertions against {items_large} with {held_large} ({held_large / held_small:.2f}x)")
        else:
            met = ratio <= WITHIN
            failed |= not met
            verdict = f"bar <= {WITHIN}x: {'met' if met else 'NOT MET'}"
        print(f"{kind:<16} {small[kind]:>8.1f} ms {large[kind]:>7.1f} ms   {ratio:.2f}x  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
