"""Incremental evaluation: a write re-evaluates what its change can reach, not its whole component.

The state rules (`rules.evaluate`) decide one *unit* at a time — the items of one key together, a
keyless item alone — after the units it reads: its premises' units (their statuses) and the units
of the items superseding it (which of their assertions are supported). Where that unit graph has no
cycle upstream of a unit, its verdict is a function of those inputs alone, whatever order the rest
was evaluated in; so a write re-evaluates the units it touches and, in topological order, the units
reading a status or a support that actually changed, and stops where nothing a reader reads moved.

Where a cycle (through keys or supersedes) lies upstream, `evaluate` breaks it by releasing the
earliest-learned undecided unit when nothing is ready; the order in which it decides units is kept
(knowledge/schedule.py: done times, `Order`, brought up to date by `reschedule`), and verdicts
propagate along the reads, which are acyclic even where the unit graph is not. The whole-component
evaluation (`reference_evaluation`, the definition) runs only for a unit never scheduled. The units
themselves and their edges are knowledge/units.py's.

Pure: plain functions over the state's records; no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from graph_service.knowledge.rules import DisputeEvent, ItemFacts, ItemVerdict, LiveAssertion, _evaluate_unit, evaluate
from graph_service.knowledge.schedule import BEFORE, Order, Schedule, UnitGraph, around, reschedule
from graph_service.knowledge.units import cites, superseded_item, unit_of
from graph_service.partial_reads import read_ahead

if TYPE_CHECKING:
    from graph_service.knowledge.records import ItemRecord
    from graph_service.knowledge.state import KnowledgeState

NO_LIVE_ASSERTION = ItemVerdict("retracted", reasons=("no live assertion",))

Verdicts = dict[str, ItemVerdict]
Disputes = dict[str, tuple[DisputeEvent, ...]]



def evaluate_unit(
    state: KnowledgeState,
    members: list[ItemRecord],
    known: Mapping[str, ItemVerdict],
    reads: Callable[[str], bool] = lambda unit: True,
) -> tuple[Verdicts, tuple[DisputeEvent, ...]]:
    """One unit's verdicts and (for a key) disputes, reading other units' verdicts from `known`
    (falling back to the records'): what `evaluate` gives it when it decides it. A live item of a
    unit `reads` refuses is not decided yet then: as a premise it reads as pending, as a superseder
    it does not count (exactly as in `evaluate`)."""
    verdicts: Verdicts = {}
    live: list[ItemFacts] = []
    for rec in members:
        facts = rec.facts(state.flags)
        if facts.assertions:
            live.append(facts)
        else:
            verdicts[rec.id] = NO_LIVE_ASSERTION
    if not live:
        return verdicts, ()
    mine = {f.id: f for f in live}
    read_ahead(state.items, [i for f in live for i in (*(p for a in f.assertions for p in a.premises),
                                                       *state.superseded_by.get(f.id, ())) if i not in mine])
    # What the unit reads of others: premises' statuses (a premise in this unit reads as pending,
    # a never-written one as dead, exactly as in `evaluate`) and superseders' supported assertions.
    seen: dict[str, ItemVerdict] = dict(verdicts)
    pending: set[str] = set(mine)
    for f in live:
        for a in f.assertions:
            for p in a.premises:
                if p in pending or p in seen:
                    continue
                prec = state.items.get(p)
                if prec is None:
                    continue
                if prec.live() and not reads(unit_of(prec)):
                    pending.add(p)
                else:
                    seen[p] = known.get(p, prec.verdict)
    superseded_by: dict[str, list[tuple[str, LiveAssertion]]] = {}
    supported_of: dict[str, list[LiveAssertion]] = {}
    for f in live:
        for other in sorted(state.superseded_by.get(f.id, ())):
            orec = state.items[other]
            found = [(other, a) for a in orec.live() if a.supersedes == f.id]
            if not found:
                continue
            superseded_by.setdefault(f.id, []).extend(found)
            if other not in mine and other not in supported_of:
                if orec.live() and not reads(unit_of(orec)):
                    continue
                support = set(known.get(other, orec.verdict).support)
                supported_of[other] = [a for a in orec.live() if a.seq in support]
    key = live[0].key
    resolutions = {} if key is None else {key: state.resolutions.get(key, [])}
    disputes: Disputes = {}
    # `pending` stands in for `evaluate`'s items: what is in it and not decided reads as pending.
    pending_items = cast("Mapping[str, ItemFacts]", dict.fromkeys(pending))
    _evaluate_unit(live, pending_items, resolutions, state.clock, seen, supported_of, disputes, superseded_by)
    for f in live:
        verdicts[f.id] = seen[f.id]
    return verdicts, disputes.get(key, ()) if key is not None else ()


@dataclass(slots=True)
class Outcome:
    """What a write changes: new verdicts of the items re-evaluated, the events of the keys re-decided,
    and the schedule to adopt (`Order.commit`) once the write is applied."""

    verdicts: Verdicts
    disputes: Disputes
    units: int = 0
    schedule: Schedule = field(default_factory=Schedule)


def propagate(
    state: KnowledgeState, order: Order, seeds: Iterable[str], structural: Iterable[str] = ()
) -> Outcome | None:
    """Re-evaluate the seed units, then every unit reading a status or support that changed, each
    after what it reads (by done time; units done in the same phase again whenever something they
    read changes: the reads are acyclic, so this settles on `evaluate`'s verdicts). `structural`
    names the items the write added assertions to or took them back from: edges and liveness may
    have changed around them, so the schedule is brought up to date first (`reschedule`). None when
    a unit it needs was never scheduled: then only the whole component gives `evaluate`'s answer.
    Reads the state and the order; changes neither."""
    seeds = set(seeds)
    graph = UnitGraph(state)
    changed = around(state, structural)
    if changed:
        schedule = reschedule(graph, order, changed)
        if schedule is None:
            return None
    else:
        schedule = Schedule()
    new_time, new_first = schedule.time, schedule.first

    # The schedule as it stands once this one is committed (read many times a unit: no ChainMap).
    def time_of(u: str) -> int | None:
        return new_time[u] if u in new_time else order.time.get(u)

    def first_of(u: str) -> int | None:
        return new_first[u] if u in new_first else order.first.get(u)

    def reads(reader: str, unit: str) -> bool:
        """Whether `reader` reads `unit`'s verdicts (rather than seeing its items as pending): a unit
        not released reads all it rests on; a released one only what was done before its release."""
        f = first_of(reader)
        if f is None or time_of(reader) != f:
            return True
        t = time_of(unit)
        return (BEFORE if t is None else t) < f

    # Units whose done time changed read differently, and so may their readers.
    moved = {u for u, t in schedule.time.items() if order.time.get(u) != t or order.first.get(u) != schedule.first[u]}
    start = seeds | changed | moved
    graph.read_ahead(moved, downstream=True)
    for u in moved:
        start |= graph.successors(u)
    heap: list[tuple[int, str]] = []
    for u in start:
        if u in schedule.gone or graph.first_learned(u) is None:
            heap.append((BEFORE, u))
        elif (t := time_of(u)) is None:
            return None
        else:
            heap.append((t, u))
    heapq.heapify(heap)
    queued = {u for _, u in heap}
    out = Outcome({}, {}, schedule=schedule)
    while heap:
        _, unit = heapq.heappop(heap)
        queued.discard(unit)
        members = graph.members(unit)
        verdicts, events = evaluate_unit(state, members, out.verdicts, lambda u, me=unit: reads(me, u))
        out.units += 1
        if unit.startswith("k:"):
            out.disputes[unit[2:]] = events
        readers: set[str] = set()
        for rec in members:
            old, new = out.verdicts.get(rec.id, rec.verdict), verdicts[rec.id]
            out.verdicts[rec.id] = new
            found: set[str] = set()
            if old.status != new.status or rec.props is None:
                read_ahead(state.items, state.dependents_of.get(rec.id, ()))
                for dep in state.dependents_of.get(rec.id, ()):
                    drec = state.items.get(dep)
                    if drec is not None and cites(drec, rec.id):
                        found.add(unit_of(drec))
            if old.support != new.support:
                changed_seqs = set(old.support) ^ set(new.support)
                for a in (x.assertion for x in rec.assertions):
                    target = superseded_item(state, a.supersedes)
                    if a.seq in changed_seqs and target is not None and target.live():
                        found.add(unit_of(target))
            # An item with nothing live is decided from the start: every reader reads it.
            readers |= found if not rec.live() else {r for r in found if reads(r, unit)}
        readers.discard(unit)
        for reader in readers:
            if reader in queued:
                continue
            if (t := time_of(reader)) is None:
                return None
            queued.add(reader)
            heapq.heappush(heap, (t, reader))
    return out


def reference_evaluation(
    state: KnowledgeState, ids: Iterable[str] | None = None
) -> tuple[Verdicts, Disputes, set[str]]:
    """`evaluate` over the whole components of `ids` (every item when None): the definition the
    incremental evaluation must equal. Returns the verdicts, the disputes of every key of those
    components (empty for a key with nothing live) and the items evaluated."""
    members = set(state.items) if ids is None else {i for i in state.component_of(ids) if i in state.items}
    facts = {i: state.items[i].facts(state.flags) for i in members}
    keys = {state.items[i].key for i in members if state.items[i].key is not None}
    resolutions = {k: state.resolutions.get(k, []) for k in keys if k is not None}
    verdicts, disputes = evaluate(facts, resolutions, state.clock)
    return verdicts, {k: disputes.get(k, ()) for k in keys if k is not None}, members
