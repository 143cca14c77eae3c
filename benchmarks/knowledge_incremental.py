"""Knowledge-store incremental evaluation benchmark: what one write costs against its component.

    .venv/bin/python -m benchmarks.knowledge_incremental [--items 10000] [--rounds 40]
        [--replay-items 10000] [--repeats 5] [--reference] [--quiet]

Pure core only (plan → seal → apply, as the service does before its one projection statement; no
database), so the figures are the evaluation's. Three bars (issue 15):

1. An add at the end of an `--items` chain (a fact derived from its top item) costs at most 1.5x an
   add at its start (a fact derived from a chain of one item), medians of `--rounds` adds of each,
   interleaved. An add derived from the long chain's first item is shown as well.
2. A retraction costs the items whose status it changes, not its component: retractions in chains
   of 100, 1,000 and `--items` items, taking 1, 10 or 100 items down, interleaved (each restored by
   re-asserting what was retracted, untimed); p50 by number of status changes, and the largest
   chain's p50 is at most 1.5x the smallest's for each.
3. Replaying (`graph_service.state.replay`, what rebuild and verify run) a `--replay-items` chain
   and a lattice of diamonds (each one component) costs at most 2x per entry what replaying as many
   independent facts does; `--repeats` replays of each, alternating, medians.

`--reference` times the whole-component evaluation instead (`KnowledgeState(incremental=False)`,
the evaluation before incremental: the same code as main's): expect it to fail the bars; use smaller
sizes, it is quadratic. The script also runs on a checkout of main (which has no such switch).
Progress goes to stderr; the report to stdout; exit 1 when a bar fails.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from graph_service.domain import Draft
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.knowledge import planning
from graph_service.knowledge.state import KnowledgeState
from graph_service.state import StoreState, replay

ADD_BAR = 1.5
RETRACTION_BAR = 1.5
REPLAY_BAR = 2.0
CHAIN_SIZES = (100, 1_000)  # besides --items
DOWN = (1, 10, 100)  # items a retraction takes down


class Writer:
    """An in-memory journal applied to one knowledge state, each write timed (plan, seal, apply)."""

    def __init__(self, reference: bool) -> None:
        self.state = KnowledgeState()
        self.reference = reference
        self.prev = GENESIS
        self.seq = 0

    def write(self, plan: Callable[[], Draft]) -> tuple[float, Any]:
        t0 = time.perf_counter()
        draft = plan()
        self.seq += 1
        entry = seal(self.prev, self.seq, draft.op, "bench", 1_700_000_000_000 + self.seq, draft.payload)
        result = self.state.apply(entry).result
        dt = time.perf_counter() - t0
        self.prev = entry.hash
        return dt, result

    def fact(self, s: str, o: Any, premises: list[str]) -> tuple[float, str]:
        raw = {"kind": "fact", "body": {"s": s, "r": "next", "o": o}, "source": "person", "derived_from": premises}
        dt, result = self.write(lambda: planning.plan_add(self.state, raw, by="bench"))
        return dt, result["id"]

    def whole(self) -> None:
        """From now on evaluate every write's whole component (the state so far is the same either way)."""
        if self.reference:
            self.state.incremental = False


def chain(w: Writer, name: str, n: int, progress: Callable[[str], None]) -> list[str]:
    ids: list[str] = []
    for i in range(n):
        ids.append(w.fact(f"{name}:{i}", i, ids[-1:])[1])
        if i % 2000 == 1999:
            progress(f"  chain {name}: {i + 1:,}/{n:,}")
    return ids


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def bench_adds(items: int, rounds: int, reference: bool, progress: Callable[[str], None]) -> tuple[list[str], bool]:
    w = Writer(reference)
    long = chain(w, "long", items, progress)
    short = chain(w, "short", 1, progress)
    w.whole()
    times: dict[str, list[float]] = {"start": [], "end": [], "first": []}
    tops = {"start": short[-1], "end": long[-1], "first": long[0]}
    order = list(times)
    rng = random.Random(1)
    for r in range(rounds):
        rng.shuffle(order)
        for where in order:
            times[where].append(w.fact(f"leaf:{where}:{r}", r, [tops[where]])[0])
    p50 = {k: statistics.median(v) for k, v in times.items()}
    ratio = p50["end"] / p50["start"]
    ok = ratio <= ADD_BAR
    lines = [
        f"1. add to a chain ({rounds} adds each, interleaved, p50):",
        f"   at its start (on a 1-item chain)         {ms(p50['start'])}",
        f"   at the end of a {items:,}-item chain     {ms(p50['end'])}",
        f"   on the {items:,}-item chain's first item {ms(p50['first'])}",
        f"   end / start = {ratio:.2f} (bar <= {ADD_BAR})  {verdict(ok)}",
    ]
    return lines, ok


def bench_retractions(
    items: int, rounds: int, reference: bool, progress: Callable[[str], None]
) -> tuple[list[str], bool]:
    w = Writer(reference)
    sizes = sorted({*CHAIN_SIZES, items})
    chains = {n: chain(w, f"c{n}", n, progress) for n in sizes}
    w.whole()
    by: dict[tuple[int, int], list[float]] = {}
    cases = [(n, d) for n in sizes for d in DOWN if d <= n]
    rng = random.Random(2)
    for r in range(rounds):
        rng.shuffle(cases)
        for n, down in cases:
            ids = chains[n]
            target = ids[n - down]
            dt, changes = w.write(lambda t=target: planning.plan_retract(w.state, t, "bench"))
            by.setdefault((n, len(changes)), []).append(dt)
            rec = w.state.items[target]
            premises = ids[n - down - 1 : n - down]
            raw = {"kind": "fact", "body": dict(rec.body), "source": "person", "derived_from": premises}
            w.write(lambda raw=raw: planning.plan_add(w.state, raw, by="bench"))
        if r % 10 == 9:
            progress(f"  retractions: round {r + 1}/{rounds}")
    changed = sorted({c for _, c in by})
    lines = [f"2. retraction p50 by items whose status changes ({rounds} each, interleaved):"]
    lines.append("   changed  " + "".join(f"{f'chain {n:,}':>14}" for n in sizes) + "   largest/smallest")
    ok = True
    for c in changed:
        row = {n: statistics.median(by[(n, c)]) for n in sizes if (n, c) in by}
        present = [n for n in sizes if n in row]
        ratio = row[present[-1]] / row[present[0]]
        fine = ratio <= RETRACTION_BAR or len(present) < 2
        ok = ok and fine
        cells = "".join(f"{row[n] * 1e3:11.3f} ms" if n in row else f"{'-':>14}" for n in sizes)
        lines.append(f"   {c:7d}  {cells}   {ratio:5.2f} (bar <= {RETRACTION_BAR})  {verdict(fine)}")
    return lines, ok


def journal(n: int, premises: int) -> list[Entry]:
    """n facts, each derived from the `premises` written just before it: 0 gives independent facts,
    1 one chain, 2 one component of diamonds (a lattice whose premise paths multiply)."""
    w = Writer(False)
    entries: list[Entry] = []
    ids: list[str] = []
    for i in range(n):
        raw = {"kind": "fact", "body": {"s": f"r:{i}", "r": "next", "o": i}, "source": "person",
               "derived_from": ids[-premises:] if premises else []}
        draft = planning.plan_add(w.state, raw, by="bench")
        w.seq += 1
        entry = seal(w.prev, w.seq, draft.op, "bench", 1_700_000_000_000 + w.seq, draft.payload)
        w.prev = entry.hash
        ids.append(w.state.apply(entry).result["id"])
        entries.append(entry)
    return entries


def timed_replay(entries: list[Entry], reference: bool) -> float:
    gc.collect()
    t0 = time.perf_counter()
    if reference:
        state = StoreState()
        state.knowledge.incremental = False
        for entry in entries:
            state.apply(entry)
    else:
        replay(entries)
    return time.perf_counter() - t0


def bench_replay(items: int, repeats: int, reference: bool, progress: Callable[[str], None]) -> tuple[list[str], bool]:
    progress(f"  writing the {items:,}-entry journals ...")
    journals = {"independent": journal(items, 0), "chain": journal(items, 1), "diamonds": journal(items, 2)}
    times: dict[str, list[float]] = {name: [] for name in journals}
    names = list(journals)
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:  # rotate who goes first
            times[name].append(timed_replay(journals[name], reference))
        progress(f"  replay {r + 1}/{repeats}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()))
    p50 = {k: statistics.median(v) for k, v in times.items()}
    lines = [f"3. replay of {items:,} entries ({repeats} each, alternating, p50):"]
    for name, label in (("independent", "independent facts"), ("chain", "one chain"),
                        ("diamonds", "one diamond lattice")):
        lines.append(f"   {label:20s} {p50[name]:8.3f} s  ({p50[name] / items * 1e6:8.1f} us/entry)")
    ok = True
    for name in ("chain", "diamonds"):
        ratio = p50[name] / p50["independent"]
        ok = ok and ratio <= REPLAY_BAR
        lines.append(f"   {name} / independent = {ratio:.2f} (bar <= {REPLAY_BAR})  {verdict(ratio <= REPLAY_BAR)}")
    return lines, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.knowledge_incremental", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000, help="the long chain's items (default 10,000)")
    parser.add_argument("--rounds", type=int, default=40, help="timed writes per case (default 40)")
    parser.add_argument("--replay-items", type=int, default=10_000, help="entries per replayed journal")
    parser.add_argument("--repeats", type=int, default=5, help="replays of each journal (default 5)")
    parser.add_argument("--reference", action="store_true",
                        help="time the whole-component evaluation (the behaviour before incremental)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    def progress(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    if not hasattr(KnowledgeState(), "incremental"):
        mode = "whole-component evaluation (code without incremental evaluation, e.g. main)"
    elif args.reference:
        mode = "whole-component evaluation (--reference)"
    else:
        mode = "incremental evaluation"
    out = [f"knowledge_incremental: {mode}"]
    ok = True
    for lines, fine in (
        bench_adds(args.items, args.rounds, args.reference, progress),
        bench_retractions(args.items, args.rounds, args.reference, progress),
        bench_replay(args.replay_items, args.repeats, args.reference, progress),
    ):
        out += lines
        ok = ok and fine
    out.append(f"overall: {verdict(ok)}")
    print("\n".join(out), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
