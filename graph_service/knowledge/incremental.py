"""Incremental evaluation: a write re-evaluates what its change can reach, not its whole component.

The state rules (`rules.evaluate`) decide one *unit* at a time — the items of one key together, a
keyless item alone — after the units it reads: its premises' units (their statuses) and the units
of the items superseding it (which of their assertions are supported). Where that unit graph has no
cycle upstream of a unit, its verdict is a function of those inputs alone, whatever order the rest
was evaluated in; so a write re-evaluates the units it touches and, in topological order, the units
reading a status or a support that actually changed, and stops where nothing a reader reads moved.

Where a cycle (through keys or supersedes) lies upstream, `evaluate` breaks it by releasing the
earliest-learned unit first, an order that depends on the whole cyclic part; there the write falls
back to the whole-component evaluation (`reference_evaluation`), which is the definition. `Order`
keeps the heights that give the topological order and the units that may lie downstream of a cycle
(tainted: a superset, made exact again for a component whenever it is evaluated whole).

Pure: plain functions over the state's records; no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graph_service.knowledge.rules import DisputeEvent, ItemFacts, ItemVerdict, LiveAssertion, _evaluate_unit, evaluate

if TYPE_CHECKING:
    from graph_service.knowledge.records import ItemRecord
    from graph_service.knowledge.state import KnowledgeState

NO_LIVE_ASSERTION = ItemVerdict("retracted", reasons=("no live assertion",))

Verdicts = dict[str, ItemVerdict]
Disputes = dict[str, tuple[DisputeEvent, ...]]


def unit_of(rec: ItemRecord) -> str:
    """The unit an item is decided in: its key's ('k:' + key), or its own ('i:' + id) when keyless."""
    return "k:" + rec.key if rec.key is not None else "i:" + rec.id


def unit_members(state: KnowledgeState, unit: str) -> list[ItemRecord]:
    """Every item of a unit, live or not, by id."""
    if unit.startswith("k:"):
        return [state.items[i] for i in sorted(state.by_key.get(unit[2:], ()))]
    rec = state.items.get(unit[2:])
    return [] if rec is None else [rec]


def _cites(rec: ItemRecord, premise: str) -> bool:
    return any(premise in a.premises for a in rec.live())


def successors(state: KnowledgeState, unit: str) -> set[str]:
    """The units `evaluate` decides after this one: live dependents' units and live supersede targets'."""
    found: set[str] = set()
    for rec in unit_members(state, unit):
        live = rec.live()
        if not live:
            continue
        for dep in state.dependents_of.get(rec.id, ()):
            drec = state.items.get(dep)
            if drec is not None and _cites(drec, rec.id):
                found.add(unit_of(drec))
        for a in live:
            target = state.items.get(a.supersedes or "")
            if target is not None and target.live():
                found.add(unit_of(target))
    found.discard(unit)
    return found


@dataclass
class Order:
    """Heights that order the units topologically, and the units that may lie downstream of a cycle.

    Invariant: for every live edge a → b between untainted units, height[a] < height[b]; the tainted
    set is closed under live edges and contains every unit with a cycle upstream (or on it).
    """

    height: dict[str, int] = field(default_factory=dict)
    tainted: set[str] = field(default_factory=set)
    # What writes cost so far (tests and benchmarks read them): units re-decided one by one, and
    # writes that fell back to evaluating their whole components.
    units_evaluated: int = 0
    whole_evaluations: int = 0

    def insert(self, state: KnowledgeState, a: str, b: str) -> None:
        """Keep the invariant for a new live edge a → b (raise what must rise, taint a new cycle)."""
        if a == b or b in self.tainted:
            return
        if a in self.tainted:
            self._taint_from(state, b)
            return
        if self.height.get(a, 0) < self.height.get(b, 0):
            return
        self.height[b] = self.height.get(a, 0) + 1
        work = [b]
        while work:
            y = work.pop()
            for x in successors(state, y):
                if x in (a, b):
                    # A cycle: b reaches a (this edge closes it) or b itself (an edge of the same new
                    # assertion, not inserted yet, closes it; every new edge touches the asserting
                    # item's unit, a or b). Everything downstream of b is decided whole.
                    self._taint_from(state, b)
                    return
                if x not in self.tainted and self.height.get(x, 0) <= self.height[y]:
                    self.height[x] = self.height[y] + 1
                    work.append(x)

    def _taint_from(self, state: KnowledgeState, start: str) -> None:
        work = [start]
        self.tainted.add(start)
        while work:
            for x in successors(state, work.pop()):
                if x not in self.tainted:
                    self.tainted.add(x)
                    work.append(x)

    def reset(self, state: KnowledgeState, members: Iterable[str]) -> None:
        """Make heights and taint exact for the units of these items (a union of whole components)."""
        units = {unit_of(state.items[i]) for i in members}
        after = {u: successors(state, u) for u in units}
        waiting = dict.fromkeys(units, 0)
        for nxt in after.values():
            for v in nxt:
                waiting[v] = waiting.get(v, 0) + 1
        ready = [u for u, n in waiting.items() if n == 0]
        level = dict.fromkeys(ready, 0)
        while ready:
            u = ready.pop()
            self.height[u] = level[u]
            self.tainted.discard(u)
            for v in after.get(u, ()):
                level[v] = max(level.get(v, 0), level[u] + 1)
                waiting[v] -= 1
                if waiting[v] == 0:
                    ready.append(v)
        self.tainted.update(u for u, n in waiting.items() if n > 0)

    def edges_of_assertion(self, state: KnowledgeState, rec: ItemRecord, a: LiveAssertion, was_live: bool) -> None:
        """Insert the live edges a new assertion of `rec` brings (and `rec`'s own, if it was not live)."""
        me = unit_of(rec)
        for p in a.premises:
            prec = state.items.get(p)
            if prec is not None and prec.live():
                self.insert(state, unit_of(prec), me)
        target = state.items.get(a.supersedes or "")
        if target is not None and target.live():
            self.insert(state, me, unit_of(target))
        if was_live:
            return
        for dep in sorted(state.dependents_of.get(rec.id, ())):
            drec = state.items.get(dep)
            if drec is not None and _cites(drec, rec.id):
                self.insert(state, me, unit_of(drec))
        for other in sorted(state.superseded_by.get(rec.id, ())):
            orec = state.items.get(other)
            if orec is not None and any(x.supersedes == rec.id for x in orec.live()):
                self.insert(state, unit_of(orec), me)


def evaluate_unit(
    state: KnowledgeState, members: list[ItemRecord], known: Mapping[str, ItemVerdict]
) -> tuple[Verdicts, tuple[DisputeEvent, ...]]:
    """One unit's verdicts and (for a key) disputes, reading other units' verdicts from `known`
    (falling back to the records'): what `evaluate` gives it once everything it reads is decided."""
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
    # What the unit reads of others: premises' statuses (a premise in this unit reads as pending,
    # a never-written one as dead, exactly as in `evaluate`) and superseders' supported assertions.
    reads: dict[str, ItemVerdict] = dict(verdicts)
    for f in live:
        for a in f.assertions:
            for p in a.premises:
                if p in mine or p in reads:
                    continue
                prec = state.items.get(p)
                if prec is not None:
                    reads[p] = known.get(p, prec.verdict)
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
                support = set(known.get(other, orec.verdict).support)
                supported_of[other] = [a for a in orec.live() if a.seq in support]
    key = live[0].key
    resolutions = {} if key is None else {key: state.resolutions.get(key, [])}
    disputes: Disputes = {}
    _evaluate_unit(live, mine, resolutions, state.clock, reads, supported_of, disputes, superseded_by)
    for f in live:
        verdicts[f.id] = reads[f.id]
    return verdicts, disputes.get(key, ()) if key is not None else ()


@dataclass
class Outcome:
    """What a write changes: new verdicts of the items re-evaluated, and the events of the keys re-decided."""

    verdicts: Verdicts
    disputes: Disputes
    units: int = 0


def propagate(state: KnowledgeState, order: Order, seeds: Iterable[str]) -> Outcome | None:
    """Re-evaluate the seed units, then, lowest first, every unit reading a status or support that
    changed. None when a unit reached may lie downstream of a cycle: then only the whole component
    gives `evaluate`'s answer. Reads the state; changes nothing."""
    heap = [(order.height.get(u, 0), u) for u in set(seeds)]
    heapq.heapify(heap)
    queued = {u for _, u in heap}
    out = Outcome({}, {})
    while heap:
        height, unit = heapq.heappop(heap)
        queued.discard(unit)
        if unit in order.tainted:
            return None
        members = unit_members(state, unit)
        verdicts, events = evaluate_unit(state, members, out.verdicts)
        out.units += 1
        if unit.startswith("k:"):
            out.disputes[unit[2:]] = events
        readers: set[str] = set()
        for rec in members:
            old, new = out.verdicts.get(rec.id, rec.verdict), verdicts[rec.id]
            out.verdicts[rec.id] = new
            if old.status != new.status or rec.props is None:
                for dep in state.dependents_of.get(rec.id, ()):
                    drec = state.items.get(dep)
                    if drec is not None and _cites(drec, rec.id):
                        readers.add(unit_of(drec))
            if old.support != new.support:
                changed = set(old.support) ^ set(new.support)
                for a in (x.assertion for x in rec.assertions):
                    target = state.items.get(a.supersedes or "")
                    if a.seq in changed and target is not None and target.live():
                        readers.add(unit_of(target))
        readers.discard(unit)
        for reader in readers:
            if reader in order.tainted:
                return None
            if order.height.get(reader, 0) <= height:
                # The order does not put this reader after us: never trust it, evaluate whole.
                return None
            if reader not in queued:
                queued.add(reader)
                heapq.heappush(heap, (order.height.get(reader, 0), reader))
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
