"""What a knowledge state's applies returned, recorded for comparison: the tests that apply an entry on a
region of the store check it against the whole store's state with these."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from graph_service.domain import Applied
from graph_service.journal.chain import Entry
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.projection import Projection
from graph_service.state import StoreState

Plain = tuple[list[Any], list[Any]]
Recorded = tuple[Entry, Plain, Any, dict[str, int | None]]


def plain(projection: Projection) -> Plain:
    """A projection's nodes and edges as plain tuples, in order."""
    return ([dataclasses.astuple(n) for n in projection.nodes], [dataclasses.astuple(e) for e in projection.edges])


def differences(got: Plain, want: Plain) -> list[Any]:
    """What differs between two projections, node by node (for a failure's message)."""
    out: list[Any] = []
    for a, b in zip(got[0], want[0], strict=False):
        if a != b:
            out.append((a[0], a[1], {k: (a[2].get(k), b[2].get(k)) for k in a[2].keys() | b[2].keys()
                                     if a[2].get(k) != b[2].get(k)}) if a[:2] == b[:2] else (a[:2], b[:2]))
    if len(got[0]) != len(want[0]):
        out.append(("nodes", [n[:2] for n in got[0]], [n[:2] for n in want[0]]))
    if got[1] != want[1]:
        out.append(("edges", got[1], want[1]))
    return out


def recording(state: StoreState) -> list[Recorded]:
    """Record every knowledge apply of this state (an entry's own, or an answer's operation) with its
    projection as it was returned (before another domain's effects are added to it), its result and the
    done times it changed."""
    seen: list[Recorded] = []
    apply: Callable[[Entry], Applied] = state.knowledge.apply

    def recorded(entry: Entry) -> Applied:
        applied = apply(entry)
        seen.append((entry, plain(applied.projection), applied.result, dict(state.knowledge.scheduled)))
        return applied

    state.knowledge.apply = recorded  # type: ignore[method-assign]
    return seen



def disagreements(region: Any, applies: list[Recorded], *, done_times: bool = True) -> list[Any]:
    """Where an application on a region (knowledge.partial.RegionApplied) did otherwise than the whole
    state's recorded applies of the same entry: per operation, its projection, result or done times (not
    compared when `done_times` is false: a state that keeps no incremental order has none)."""
    if len(region.applied) != len(applies):
        return [("operations", len(region.applied), len(applies))]
    found: list[Any] = []
    for got, scheduled, (sub, projection, result, want_scheduled) in zip(
            region.applied, region.scheduled, applies, strict=True):
        if plain(got.projection) != projection:
            found.append((sub.seq, sub.op, "projection", differences(plain(got.projection), projection)))
        if got.result != result:
            found.append((sub.seq, sub.op, "result", got.result, result))
        if done_times and scheduled != want_scheduled:
            found.append((sub.seq, sub.op, "done times", scheduled, want_scheduled))
    return found


def check_every_entry(entries: Iterable[Entry], region_of: Callable[[StoreState, Entry], Any],
                      wide: tuple[type[Exception], ...], *, done_times: bool = True
                      ) -> tuple[Counter[str], Counter[str], StoreState]:
    """Apply each entry to a whole store's state and, for each knowledge entry, compare what `region_of`
    (given the whole state before the entry, and the entry) applied on its region: it must agree
    (`disagreements`). Returns the operations checked, those whose region raised one of `wide` (no region:
    a whole part read), and the whole state at the end."""
    whole = StoreState()
    applies = recording(whole)
    checked: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for entry in entries:
        region = None
        if knowledge_ops(entry.op, entry.payload):
            try:
                region = region_of(whole, entry)
            except wide:
                unknown[entry.op] += 1
        del applies[:]
        whole.apply(entry)
        if region is not None:
            found = disagreements(region, applies, done_times=done_times)
            assert not found, (entry.seq, entry.op, found)
            checked[entry.op] += 1
    return checked, unknown, whole
