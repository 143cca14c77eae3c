"""The pure core's share of a write as the store grows: what applying an entry costs early and late in
a long history, what the in-memory state holds per entry, and the collector's pause over it.

    .venv/bin/python -m benchmarks.pure_apply [--entries 30000] [--window 1000] [--seed 7]

No database: the benchmark's realistic mix (`benchmarks.service_shape.mix`) is planned and applied to a
`StoreState` entry by entry, as the service does between its append and its projection.

1. Apply by operation, mean over `--window` entries at 10% and at 90% of the run, with the garbage
   collector on (as served) and again, on the same entries, with it off (the rules' own cost): the
   bar is a late write within 1.5x an early one, per operation, collector off.
2. The traced memory of the state per entry at the end (tracemalloc, a second run).
3. A full collection's pause over the state at the end, as it is and frozen (`gc.freeze`, which the
   service does once its start-up replay is done; see api/startup.py), medians of 5, interleaved.
Progress goes to stderr; the report to stdout; exit 1 when a bar fails.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
import types
from collections import defaultdict

from benchmarks.service_shape import mix
from graph_service.journal.chain import Entry
from graph_service.state import StoreState

LATE_OVER_EARLY = 1.5
OPS = ("item.add", "item.retract", "belief.create", "statement.say", "stream.observe")


def entries(n: int, seed: int) -> list[Entry]:
    """The mix's first n entries (planned on a state of their own)."""
    state = StoreState()
    out = []
    for seq, plan in enumerate(mix(types.SimpleNamespace(state=state), n, seed), start=1):
        draft = plan()
        entry = Entry(seq=seq, op=draft.op, by="loader", at=1_700_000_000_000 + seq, payload=draft.payload,
                      prev="", hash="")
        state.apply(entry)
        out.append(entry)
    return out


def apply_times(journal: list[Entry], window: int, collector: bool) -> dict[tuple[str, str], list[float]]:
    """Seconds per applied entry, by (window, op), over a fresh state."""
    state = StoreState()
    windows = {"early": range(len(journal) // 10, len(journal) // 10 + window),
               "late": range(len(journal) * 9 // 10, len(journal) * 9 // 10 + window)}
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    was = gc.isenabled()
    if not collector:
        gc.disable()
    try:
        for index, entry in enumerate(journal):
            started = time.perf_counter()
            state.apply(entry)
            spent = time.perf_counter() - started
            for name, span in windows.items():
                if index in span:
                    times[(name, entry.op)].append(spent)
    finally:
        if was:
            gc.enable()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=30_000)
    parser.add_argument("--window", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"planning {args.entries} entries of the mix", file=sys.stderr)
    journal = entries(args.entries, args.seed)
    ok = True
    print(f"pure apply, {args.entries} entries of the mix, mean per entry over {args.window} entries at 10% and 90%")
    runs = {}
    for collector in (True, False):
        print(f"applying with the collector {'on' if collector else 'off'}", file=sys.stderr)
        runs[collector] = apply_times(journal, args.window, collector)
    for op in OPS:
        figures = []
        for collector in (True, False):
            early, late = (runs[collector].get((w, op), []) for w in ("early", "late"))
            if not early or not late:
                continue
            e, lt = statistics.fmean(early) * 1e3, statistics.fmean(late) * 1e3
            figures.append(f"collector {'on' if collector else 'off'}: {e:.3f} → {lt:.3f} ms ({lt / e:.2f}x)")
            if not collector and lt > LATE_OVER_EARLY * e:
                ok = False
                figures[-1] += f"  FAIL: over {LATE_OVER_EARLY}x"
        print(f"  {op:15s} " + "; ".join(figures))

    print("tracing memory (a second apply)", file=sys.stderr)
    state = StoreState()
    tracemalloc.start()
    for entry in journal:
        state.apply(entry)
    traced, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"state memory: {traced / 1e6:.1f} MB traced, {traced / len(journal):.0f} B per entry")
    del journal, runs  # the pause is the state's alone

    pauses: dict[str, list[float]] = {"as it is": [], "frozen": []}
    for _ in range(5):
        for name in pauses:
            if name == "frozen":
                gc.freeze()
            started = time.perf_counter()
            gc.collect()
            pauses[name].append((time.perf_counter() - started) * 1e3)
            if name == "frozen":
                gc.unfreeze()
    print(f"a full collection over the state ({len(gc.get_objects())} tracked objects): "
          + ", ".join(f"{name} {statistics.median(v):.1f} ms" for name, v in pauses.items()))
    print("bars:", "met" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
