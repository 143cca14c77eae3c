"""The order in which `evaluate` decides units, kept up to date as writes come.

Where a cycle (through keys or supersedes) lies upstream, `evaluate` breaks it by releasing the
earliest-learned undecided unit when nothing is ready, and the released unit reads what is not yet
decided as pending. That order is a schedule of the unit graph alone (no verdict enters it): each
unit has a done time (`done_times`: the first-learned position of the release whose phase decides
it), a unit is released iff its done time is its own first position, and then it reads exactly the
units done before it. `Order` keeps those times; a write brings them up to date around the items it
changed (`reschedule`, mostly a local check; `_settle` where times change), and `incremental.propagate`
then carries verdicts along the reads, which are acyclic even where the unit graph is not.

Pure: plain functions over the state's records; no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graph_service.knowledge.units import (
    downstream_items,
    first_learned,
    predecessors,
    successors,
    superseded_item,
    unit_members,
    unit_of,
    upstream_items,
)
from graph_service.partial_reads import PartialMap, read_ahead

if TYPE_CHECKING:
    from graph_service.knowledge.records import ItemRecord
    from graph_service.knowledge.state import KnowledgeState


class UnitGraph:
    """The unit graph of a state that does not change while it is read (one write's evaluation):
    `unit_members`, `successors`, `predecessors` and `first_learned`, each worked out once per unit.

    A write's schedule checks and searches ask the same units these again and again (a region's
    done times read every unit's predecessors and successors, its equations re-read them); the
    answers are the functions' own, so nothing here can differ from them while the state stands
    still. Build a new one once the state has changed; the sets it returns must not be changed.
    """

    def __init__(self, state: KnowledgeState) -> None:
        self.state = state
        # A state that reads what it lacks (knowledge.partial) gains from reading ahead; a whole one has it all.
        self.reads = isinstance(state.items, PartialMap)
        self._members: dict[str, list[ItemRecord]] = {}
        self._successors: dict[str, set[str]] = {}
        self._predecessors: dict[str, set[str]] = {}
        self._first: dict[str, int | None] = {}

    def members(self, unit: str) -> list[ItemRecord]:
        found = self._members.get(unit)
        if found is None:
            found = self._members[unit] = unit_members(self.state, unit)
        return found

    def successors(self, unit: str) -> set[str]:
        found = self._successors.get(unit)
        if found is None:
            found = self._successors[unit] = successors(self.state, unit)
        return found

    def predecessors(self, unit: str) -> set[str]:
        found = self._predecessors.get(unit)
        if found is None:
            found = self._predecessors[unit] = predecessors(self.state, unit)
        return found

    def read_ahead(self, units: Iterable[str], *, upstream: bool = False, downstream: bool = False) -> None:
        """About to read these units' members, and with `upstream` their predecessors or with `downstream` their
        successors: a partial state reads the items that takes in two round trips (the members, then what
        those functions read of them), not one or more a unit. Changes nothing of what they return."""
        if not self.reads:
            return
        units = [u for u in dict.fromkeys(units) if u not in self._members]
        state = self.state
        read_ahead(state.items, [i for u in units
                                 for i in ((u[2:],) if u.startswith("i:") else state.by_key.get(u[2:], ()))])
        if upstream or downstream:
            live = [rec for u in units for rec in self.members(u) if rec.live()]
            ahead: list[str] = []
            for rec in live:
                ahead += (upstream_items(state, rec) if upstream else []) + (
                    downstream_items(state, rec) if downstream else [])
            read_ahead(state.items, ahead)

    def read_ahead_before(self, units: list[str]) -> None:
        """About to read these units in turn, the last first (a work list), with their predecessors: read them
        all ahead when the next is not read yet, so a work list costs two round trips a wave of units, not a
        unit, and a list already read costs no scan."""
        if self.reads and units and units[-1] not in self._members:
            self.read_ahead(units, upstream=True)

    def first_learned(self, unit: str) -> int | None:
        if unit not in self._first:
            self._first[unit] = first_learned(self.state, unit)
        return self._first[unit]


# The done time of a unit no release is needed for (nothing cyclic upstream): before any release.
BEFORE = -1


def done_times(
    graph: UnitGraph, region: set[str], outside: Mapping[str, int]
) -> tuple[dict[str, int], dict[str, int]]:
    """When `evaluate` decides each unit of `region` (a set closed under `successors`): the first-
    learned position of the release that makes it decidable (its own when it is released itself),
    BEFORE when no release is needed; and each unit's first-learned position. Units with nothing live
    are left out. Predecessors outside the region are read from `outside` (their done times).

    Why this is `evaluate`'s schedule: its releases come in increasing first-learned order (each is
    the earliest undecided unit, and the undecided set only shrinks), and between releases it decides
    exactly what becomes decidable; so a unit is done in the phase of the latest done time among its
    predecessors, unless its own release comes first: T(u) = min(first(u), max T(pred)), the greatest
    such solution (a cycle nobody releases is never decided). This simulates those phases in time
    order, as a shortest-path search would: it depends only on what lies upstream of a unit.
    """
    first: dict[str, int] = {}
    graph.read_ahead(region, upstream=True, downstream=True)
    for u in region:
        f = graph.first_learned(u)
        if f is not None:
            first[u] = f
    ext: dict[str, int] = {}
    inside: dict[str, int] = {}
    for u in first:
        latest, count = BEFORE, 0
        for p in graph.predecessors(u):
            if p in first:
                count += 1
            elif p not in region:
                latest = max(latest, outside[p])
        ext[u], inside[u] = latest, count
    # (time, 0 = its release / 1 = it becomes decidable, unit): a release at the same time wins,
    # though only the time is kept.
    heap: list[tuple[int, int, str]] = [(f, 0, u) for u, f in first.items()]
    heap += [(ext[u], 1, u) for u in first if inside[u] == 0]
    heapq.heapify(heap)
    times: dict[str, int] = {}
    while heap:
        t, _, u = heapq.heappop(heap)
        if u in times:
            continue
        times[u] = t
        for v in graph.successors(u):
            if v in first and v not in times:
                inside[v] -= 1
                if inside[v] == 0:
                    heapq.heappush(heap, (max(t, ext[v]), 1, v))
    return times, first


def downstream(graph: UnitGraph, seeds: Iterable[str]) -> set[str]:
    """The seeds and every unit reachable from them by `successors`."""
    found = set(seeds)
    level = list(found)
    while level:  # level by level, each level's reads in two round trips (UnitGraph.read_ahead)
        graph.read_ahead(level, downstream=True)
        reached: list[str] = []
        for u in level:
            for v in graph.successors(u):
                if v not in found:
                    found.add(v)
                    reached.append(v)
        level = reached
    return found


@dataclass(slots=True)
class Order:
    """When `evaluate` decides each live unit (`done_times`), and each one's first-learned position.

    A unit u is released (decided before all it reads is, reading the undecided as pending) iff
    time[u] == first[u]; it then reads exactly the units done before it (time < first[u]), and a unit
    not released reads all its predecessors. Those reads form an acyclic graph along which verdicts
    are a pure function of what is read, whatever lies in cycles of the unit graph.
    """

    time: dict[str, int] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)
    # What writes cost so far (tests and benchmarks read them): units re-decided one by one, writes
    # that fell back to evaluating their whole components, and units whose done time was recomputed.
    units_evaluated: int = 0
    whole_evaluations: int = 0
    units_scheduled: int = 0
    # Each scheduled unit's predecessors as these times were worked out for: a cycle can carry
    # times up only through an edge the unit graph did not have (see `reschedule`).
    preds: dict[str, frozenset[str]] = field(default_factory=dict)

    def reset(self, state: KnowledgeState, members: Iterable[str]) -> None:
        """Make the schedule exact for the units of these items (a union of whole components)."""
        units = {unit_of(state.items[i]) for i in members}
        for u in units:
            self.time.pop(u, None)
            self.first.pop(u, None)
            self.preds.pop(u, None)
        graph = UnitGraph(state)
        times, first = done_times(graph, units, {})
        self.time.update(times)
        self.first.update(first)
        self.preds.update({u: frozenset(graph.predecessors(u)) for u in first})
        self.units_scheduled += len(units)

    def commit(self, schedule: Schedule) -> None:
        """Adopt a write's new schedule (computed without changing this one)."""
        for u in schedule.gone:
            self.time.pop(u, None)
            self.first.pop(u, None)
            self.preds.pop(u, None)
        self.time.update(schedule.time)
        self.first.update(schedule.first)
        self.preds.update(schedule.preds)
        self.units_scheduled += schedule.recomputed


@dataclass(slots=True)
class Schedule:
    """A write's changes to an `Order`: new done times, first positions and predecessors, units no
    longer live."""

    time: dict[str, int] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    recomputed: int = 0
    preds: dict[str, frozenset[str]] = field(default_factory=dict)


def around(state: KnowledgeState, ids: Iterable[str]) -> set[str]:
    """The units whose predecessors can change when assertions of these items are added or taken
    back: the items' own, and those of every item citing, superseding or superseded by one of them."""
    found: set[str] = set()
    ids = list(ids)
    read_ahead(state.items, ids)
    recs = [rec for rec in (state.items.get(i) for i in ids) if rec is not None]
    read_ahead(state.items, [i for rec in recs for i in (*state.dependents_of.get(rec.id, ()),
                                                         *state.superseded_by.get(rec.id, ()),
                                                         *(a.assertion.supersedes for a in rec.assertions
                                                           if a.assertion.supersedes))])
    for rec in recs:
        found.add(unit_of(rec))
        for other in (*state.dependents_of.get(rec.id, ()), *state.superseded_by.get(rec.id, ())):
            if other in state.items:
                found.add(unit_of(state.items[other]))
        for a in rec.assertions:
            target = superseded_item(state, a.assertion.supersedes)
            if target is not None:
                found.add(unit_of(target))
    return found


def _cycle_through(
    graph: UnitGraph, order: Order, unit: str, window: tuple[int, int] | None = None,
    loose: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """Whether a cycle through `unit` (not released) stays within units learned after its done time
    and done before its first position (units never scheduled, and those in `loose`, count as
    within). `window` replaces (done time, first position) when the unit's are about to change.

    Such a cycle exists iff some path leaves `unit` forward through units within and comes back, so
    both searches below (forward by `successors`, backward by `predecessors`, its exact mirror) find
    `unit` again if either is run to the end. They take turns, one unit each, and stop as soon as one
    side meets what the other reached (a cycle), or one side runs out without meeting (none: run to
    its end it would have found `unit`, which both sides hold from the start): the cost is about the
    smaller of what is reachable forward and backward, not the whole downstream of an old unit.
    """
    low, high = window if window is not None else (order.time[unit], order.first[unit])

    def within(v: str) -> bool:
        f = order.first.get(v)
        return f is None or v in loose or (f > low and order.time[v] < high)

    # Each side holds `unit` and the units within reached from it; meeting either is a cycle.
    ahead, behind = {unit}, {unit}
    forward, backward = [unit], [unit]
    while forward and backward:
        for v in graph.successors(forward.pop()):
            if v in behind:
                return True
            if v not in ahead and within(v):
                ahead.add(v)
                forward.append(v)
        if not forward:
            break
        for v in graph.predecessors(backward.pop()):
            if v in ahead:
                return True
            if v not in behind and within(v):
                behind.add(v)
                backward.append(v)
    return False


def _gained(order: Order, unit: str, preds: Iterable[str]) -> bool:
    """Whether the unit has a predecessor it did not have when its done time was worked out (True
    when that was not recorded)."""
    old = order.preds.get(unit)
    return old is None or not old.issuperset(preds)


def reschedule(graph: UnitGraph, order: Order, changed: set[str]) -> Schedule | None:
    """The schedule after a write whose structural changes (edges, liveness, first positions) are all
    on units in `changed` (their predecessor sets); None when a unit it needs was never scheduled.

    Most writes leave every done time as it was, which is checked locally: every changed unit keeps
    its first position and its old time still solves its new equation, so the old times solve the
    new system. They are its greatest solution unless a larger one exists; in that one, following
    from a unit whose time rose a predecessor whose time rose at least as much, one ends on a cycle
    of units whose times rose, all to one value c, each learned no earlier than c and done before c.
    The old graph had no such cycle (its greatest solution would have put them at c or later), so it
    runs through a new edge into a changed unit u not released (a released one cannot rise): none
    exists if u gained no predecessor (`Order.preds`: a write re-asserting what was asserted adds
    no edge), nor if no cycle through u stays within units learned after u's old time and done
    before u's first position (`_cycle_through`). A new unit nothing depends on is decided after its
    predecessors. Where that check fails, the times are settled around the units whose times change
    (`_settle`, exact as its docstring says); where it cannot show that, the done times of everything
    downstream of the units that failed are recomputed (`done_times`), the rest fixed.
    """
    out = Schedule()
    failing: set[str] = set()
    # Changed units solving their equations with a cycle through them that may carry their time up.
    cyclic: set[str] = set()
    firsts: dict[str, int] = {}
    graph.read_ahead(changed, upstream=True)
    for u in sorted(changed):
        first = graph.first_learned(u)
        if first is None:
            if u in order.first:
                out.gone.add(u)
            continue
        firsts[u] = first
        preds = graph.predecessors(u)
        out.preds[u] = frozenset(preds)
        if any(p not in order.time and p not in changed for p in preds):
            return None
        # A changed predecessor that fails the check puts this unit downstream of it, recomputed
        # below; one that passes keeps its time: reading old times here is safe either way.
        latest = max((order.time.get(p, BEFORE) for p in preds), default=BEFORE)
        if u not in order.first:
            if graph.successors(u):
                failing.add(u)
            else:
                out.time[u], out.first[u] = min(first, latest), first
            continue
        if order.first[u] != first or min(first, latest) != order.time[u]:
            failing.add(u)
        elif order.time[u] != first and _gained(order, u, preds) and _cycle_through(graph, order, u):
            failing.add(u)
            cyclic.add(u)
    if not failing:
        return out
    settled = _settle(graph, order, changed, firsts, failing, cyclic)
    if settled is not None:
        times, recomputed = settled
        out.time.update(times)
        out.first.update({u: firsts[u] if u in firsts else order.first[u] for u in times})
        out.recomputed = recomputed
        return out
    region = downstream(graph, failing)
    outside: dict[str, int] = {}
    graph.read_ahead(region, upstream=True)
    for u in region:
        for p in graph.predecessors(u):
            if p not in region:
                if p not in order.time:
                    return None
                outside[p] = order.time[p]
    times, first = done_times(graph, region, outside)
    out.time.update(times)
    out.first.update(first)
    out.gone |= {u for u in region if u not in first and u in order.first}
    out.recomputed = len(region)
    return out


def _behind(graph: UnitGraph, order: Order, unit: str, loose: set[str]) -> set[str]:
    """`unit` and every unit reaching it by `successors` through units within its window: learned
    after its done time and done before its first position (units never scheduled, and those in
    `loose`, count as within), as in `_cycle_through`. Every cycle through it within its window lies
    in this set."""
    low, high = order.time[unit], order.first[unit]
    found = {unit}
    work = [unit]
    while work:
        for v in graph.predecessors(work.pop()):
            if v in found:
                continue
            f = order.first.get(v)
            if f is None or v in loose or (f > low and order.time[v] < high):
                found.add(v)
                work.append(v)
    return found


def _settle(
    graph: UnitGraph,
    order: Order,
    changed: set[str],
    firsts: Mapping[str, int],
    failing: set[str],
    cyclic: set[str],
) -> tuple[dict[str, int], int] | None:
    """The new done times, found around the units whose times change: each unit's whose time
    changed, each live changed unit's and each new unit's, and how many units were looked at; None
    when that cannot be shown (a falling unit where a cycle may carry times up, a unit never
    scheduled), so the caller recomputes the whole downstream. `firsts`: the live changed units' new
    first positions; `cyclic`: changed units that solve their equations at their old times with a
    cycle through them within their windows (`_cycle_through`).

    Why it is exact (Y: the new greatest solution; X: the times being built, the old ones at first).
    New units start at their greatest solution among themselves with the rest held at X. R: the
    units reaching a cyclic unit within its window (`_behind`), solved together (`done_times`) with
    the rest held at X, again whenever a predecessor outside R rises. R's old units solve their new
    equations at or above their old times (else None), so the old times are below R's greatest
    solution and X stays at or above the old times. (1) Raise: while some unit u outside R has
    min(first(u), max X(pred)) > X(u), raise X(u) to it; only changed units, successors of new units
    and successors of raised units can, every other equation being old and solved by the old times.
    Then no equation is above X, and X is at or above the old times. (2) Check that no new unit, no
    unit whose first position moved and no changed unit outside `cyclic` that gained a predecessor
    (`Order.preds`), w below its first position, has a cycle through it within units learned
    after X(w) and done before first(w), counting units never scheduled and those whose first
    position moved as within (`_cycle_through`; old times are at most X, so it finds at least those
    cycles). Then Y <= X: were some Y(u) > X(u), (1) gives a predecessor p with Y(p) >= Y(u) > X(p),
    and following them ends on a cycle C of units all at one value c with old time <= X < c <= first.
    With no new edge, new unit or moved first position on it, raising the old times to c there would
    solve the old system above its greatest solution; so it runs into a new unit, through a unit whose
    first position moved, or through an edge a changed unit gained. (2) rules out one outside `cyclic`;
    through a cyclic unit, C lies within its window (X there is at or above the old time), so in R,
    and raising X to c on C would solve R's system above its greatest solution. (3) Lower: from X,
    lowering one unit at a time to its equation's value stays at or above Y (the equations are
    monotone and Y solves them) and ends where every equation holds: a solution at or above the
    greatest one, so Y itself. Only units whose time rises or falls, their successors and R are
    looked at.
    """
    fresh = [u for u in sorted(firsts) if u not in order.first]
    moved = {u for u in firsts if u in order.first and order.first[u] != firsts[u]}
    x: dict[str, int] = {}
    looked: set[str] = set()
    missing = False

    def first_of(u: str) -> int:
        return firsts[u] if u in firsts else order.first[u]

    def time_of(u: str) -> int:
        nonlocal missing
        if u in x:
            return x[u]
        if u in order.time:
            return order.time[u]
        missing = True
        return BEFORE

    def equation(u: str) -> int:
        looked.add(u)
        return min(first_of(u), max((time_of(p) for p in graph.predecessors(u)), default=BEFORE))

    # New units: from their first positions down to their greatest solution with the rest held
    # (a write adds few, so repeated sweeps are cheap).
    for u in fresh:
        x[u] = firsts[u]
    lowered = True
    while lowered:
        lowered = False
        for u in fresh:
            t = equation(u)
            if t < x[u]:
                x[u], lowered = t, True
    region: set[str] = set()
    for u in sorted(cyclic):
        region |= _behind(graph, order, u, moved)
    for u in region:
        if u in order.first and (u in moved or (u in changed and equation(u) < order.time[u])):
            return None
    if missing:
        return None
    # (1) Raise until no equation is above X, solving R whenever what it reads from outside rose.
    work = [u for u in firsts if u in order.first and u not in region]
    for u in fresh:
        work += [v for v in graph.successors(u) if v not in region]
    visited = set(work)
    solve = bool(region)
    while solve or work:
        if solve:
            solve = False
            outside: dict[str, int] = {}
            graph.read_ahead(region, upstream=True)
            for u in region:
                looked.add(u)
                for p in graph.predecessors(u):
                    if p not in region:
                        outside[p] = time_of(p)
            if missing:
                return None
            solved, _ = done_times(graph, region, outside)
            for u, t in solved.items():
                if t != time_of(u):
                    x[u] = t
                    visited.add(u)
                    for v in graph.successors(u):
                        if v not in region:
                            visited.add(v)
                            work.append(v)
        while work:
            graph.read_ahead_before(work)
            u = work.pop()
            t = equation(u)
            if missing:
                return None
            if t > time_of(u):
                x[u] = t
                for v in graph.successors(u):
                    if v in region:
                        solve = True
                    else:
                        visited.add(v)
                        work.append(v)
    # (2) A changed unit that passed was checked with the old windows, which hold at least the new
    # ones (its time only rose) while no first position moved. A cycle runs into a changed unit
    # through an edge it gained, or through the unit itself where its first position moved: one of
    # neither kind needs no check.
    for u in sorted(firsts):
        rechecked = u not in order.first or u in moved or (
            _gained(order, u, graph.predecessors(u)) and ((u in failing and u not in cyclic) or bool(moved))
        )
        if rechecked and time_of(u) < firsts[u] and _cycle_through(graph, order, u, (time_of(u), firsts[u]), moved):
            return None
    # (3) Lower, smallest value first (so each unit is mostly lowered once): only units (1) looked
    # at or whose predecessors fall can have an equation below X.
    graph.read_ahead(visited | region, upstream=True)
    heap = [(equation(u), u) for u in sorted(visited | region)]
    heap = [(t, u) for t, u in heap if t < time_of(u)]
    heapq.heapify(heap)
    while heap:
        _, u = heapq.heappop(heap)
        t = equation(u)
        if t >= time_of(u):
            continue
        x[u] = t
        graph.read_ahead(graph.successors(u), upstream=True)
        for v in graph.successors(u):
            tv = equation(v)
            if tv < time_of(v):
                heapq.heappush(heap, (tv, v))
    if missing:
        return None
    times = {u: t for u, t in x.items() if order.time.get(u) != t}
    times.update({u: time_of(u) for u in firsts})
    return times, len(looked)

