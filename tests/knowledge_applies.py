"""What a knowledge state's applies returned, recorded for comparison: the tests that apply an entry on a
region of the store check it against the whole store's state with these."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.journal.chain import Entry
from graph_service.knowledge import planning
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.state import KnowledgeState
from graph_service.projection import Projection
from graph_service.state import StoreState

Plain = tuple[list[Any], list[Any]]
Recorded = tuple[Entry, Plain, Any, dict[str, int | None], dict[tuple[str, int], bool]]


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
    projection as it was returned (before another domain's effects are added to it), its result, the done
    times it changed and its changes to the expiry queue."""
    seen: list[Recorded] = []
    apply: Callable[[Entry], Applied] = state.knowledge.apply

    def recorded(entry: Entry) -> Applied:
        applied = apply(entry)
        seen.append((entry, plain(applied.projection), applied.result, dict(state.knowledge.scheduled),
                     dict(state.knowledge.expiry.changes)))
        return applied

    state.knowledge.apply = recorded  # type: ignore[method-assign]
    return seen



def disagreements(region: Any, applies: list[Recorded], *, bookkeeping: bool = True) -> list[Any]:
    """Where an application on a region (knowledge.partial.RegionApplied) did otherwise than the whole
    state's recorded applies of the same entry: per operation, its projection, result, done times or expiry
    queue changes (the last two not compared when `bookkeeping` is false: a state rebuilt from the items'
    histories keeps neither the incremental order nor the queue)."""
    if len(region.applied) != len(applies):
        return [("operations", len(region.applied), len(applies))]
    found: list[Any] = []
    for got, scheduled, expiries, (sub, projection, result, want_scheduled, want_expiries) in zip(
            region.applied, region.scheduled, region.expiries, applies, strict=True):
        if plain(got.projection) != projection:
            found.append((sub.seq, sub.op, "projection", differences(plain(got.projection), projection)))
        if got.result != result:
            found.append((sub.seq, sub.op, "result", got.result, result))
        if bookkeeping and scheduled != want_scheduled:
            found.append((sub.seq, sub.op, "done times", scheduled, want_scheduled))
        if bookkeeping and expiries != want_expiries:
            found.append((sub.seq, sub.op, "expiry queue", expiries, want_expiries))
    return found


def check_every_entry(entries: Iterable[Entry], region_of: Callable[[StoreState, Entry], Any],
                      wide: tuple[type[Exception], ...], *, bookkeeping: bool = True
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
            found = disagreements(region, applies, bookkeeping=bookkeeping)
            assert not found, (entry.seq, entry.op, found)
            checked[entry.op] += 1
    return checked, unknown, whole


Planned = tuple[Any, ...]
PLANNERS = tuple(name for name in dir(planning) if name.startswith("plan_"))


def planned(plan: Callable[[], Draft]) -> Planned:
    """What a planner gave: its draft, or the refusal it raised (its type, message and field)."""
    try:
        return ("draft", plan())
    except UserError as refused:
        return ("refused", type(refused).__name__, str(refused), refused.field)


def check_plans(monkeypatch: pytest.MonkeyPatch,
                on_region: Callable[[KnowledgeState, Callable[[KnowledgeState], Draft]], Draft | None],
                checks: Counter[str], mismatches: list[Any]) -> None:
    """Every knowledge planner (knowledge.planning.plan_*), wherever it is called through the module, also
    runs on what it reads (`on_region(state, plan)`: the draft, raising the planner's refusal; None where
    that state has no region to read), and what it gives there must be what it gives on the whole state
    (kept in `mismatches` otherwise). The whole state's answer is what the caller gets."""
    for name in PLANNERS:
        original = getattr(planning, name)

        def checked(state: KnowledgeState, *args: Any, _original: Any = original, _name: str = name,
                    **kwargs: Any) -> Draft:
            try:
                want = ("draft", _original(state, *args, **kwargs))
            except UserError as refused:
                want, error = ("refused", type(refused).__name__, str(refused), refused.field), refused
            else:
                error = None
            got = planned(lambda: on_region(state, lambda s: _original(s, *args, **kwargs)))  # type: ignore[arg-type,return-value]
            if got != ("draft", None):
                checks[f"plan {_name}"] += 1
                checks["plans refused"] += want[0] == "refused"
                if got != want:
                    mismatches.append((_name, got, want))
            if error is not None:
                raise error
            return want[1]

        monkeypatch.setattr(planning, name, checked)
