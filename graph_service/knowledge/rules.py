"""The state rules: statuses as a pure function of the live entries of one connected component.

An item is present while it has a live assertion whose premises are present and not refuted.
Per key the supported assertions are walked in journal order (`walk_key`); what the walk leaves
standing is held, what it displaced is refuted, and two equally ranked values standing together
are disputed. Flags, the store clock, promotion and retirement then decide between active,
hypothesis and expired.

The incremental store and the full replay both call `evaluate` on the same live entries, which
is why a retraction is exact: nothing here depends on the order entries were applied in, only on
the entries themselves.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph_service.knowledge.items import BEHAVIOUR_KINDS, CONFIRMING_SOURCES, PRESENT_STATUSES, RANKS

# A premise in a cycle not evaluated yet: counted present but never active (a cautious hint).
_PENDING = "pending"


@dataclass(frozen=True, slots=True)
class LiveAssertion:
    """One live (not retracted) assertion of an item, as the rules read it."""

    seq: int
    source: str
    by: str
    premises: tuple[str, ...] = ()
    supersedes: str | None = None
    clock_at: int = 0
    reconfirm_after: int | None = None
    valid: tuple[Any, Any] | None = None

    @property
    def rank(self) -> int:
        return RANKS.get(self.source, 0)


@dataclass(frozen=True, slots=True)
class PendingFlag:
    """A pending flag covering an item: its id, the journal position it was raised at, and why."""

    id: str
    seq: int
    why: str


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """Everything the rules read about one item."""

    id: str
    kind: str
    key: str | None
    value: str
    assertions: tuple[LiveAssertion, ...]
    promoted: bool = True
    held_why: str | None = None
    retired_at: int | None = None
    flags: tuple[PendingFlag, ...] = ()


@dataclass(frozen=True, slots=True)
class ItemVerdict:
    """What the rules conclude about one item."""

    status: str
    support: tuple[int, ...] = ()
    best: LiveAssertion | None = None
    reasons: tuple[str, ...] = ()
    stale: bool = False
    expires_at: int | None = None


@dataclass(frozen=True, slots=True)
class DisputeEvent:
    """One dispute on a key: opened at a journal position; one question to a person per event."""

    key: str
    opened_at: int
    closed_at: int | None
    values: tuple[str, ...]
    items: tuple[str, ...]
    resolved: str | None = None

    @property
    def open(self) -> bool:
        return self.closed_at is None


@dataclass(frozen=True, slots=True)
class Resolution:
    """A person's answer to a dispute on a key: `value` wins from journal position `seq`."""

    seq: int
    value: str


@dataclass(slots=True)
class _Walk:
    standing: dict[str, int] = field(default_factory=dict)
    opened_at: int | None = None
    values: set[str] = field(default_factory=set)
    events: list[tuple[int, int | None, tuple[str, ...], str | None]] = field(default_factory=list)

    def settle(self, seq: int, resolved: str | None = None) -> None:
        # Close the open dispute once one value (or none) stands.
        if self.opened_at is not None and len(self.standing) < 2:
            self.events.append((self.opened_at, seq, tuple(sorted(self.values)), resolved))
            self.opened_at, self.values = None, set()
        elif self.opened_at is None and len(self.standing) >= 2:
            self.opened_at = seq
        if self.opened_at is not None:
            self.values.update(self.standing)


def walk_key(
    key: str,
    assertions: Sequence[tuple[LiveAssertion, str, str]],
    resolutions: Sequence[Resolution],
    values_of: Mapping[str, str],
) -> tuple[dict[str, str], tuple[DisputeEvent, ...]]:
    """Walk one key's supported assertions `(assertion, item, value)` and resolutions in journal order.

    Returns each value's verdict ('held', 'disputed' or 'refuted') and the dispute events. The same
    value confirms; an outcome displaces whatever stands; a higher rank displaces a lower one and a
    lower rank is refuted; superseding displaces the version named; equal ranks dispute.
    `values_of` gives the value of a superseded item on this key.
    """
    events: list[tuple[int, int, Any]] = [(a.seq, 0, (a, item, value)) for a, item, value in assertions]
    events += [(r.seq, 1, r) for r in resolutions]
    events.sort(key=lambda e: (e[0], e[1]))
    walk = _Walk()
    seen: set[str] = set()
    for seq, is_resolution, event in events:
        if is_resolution:
            if len(walk.standing) >= 2 and event.value in walk.standing:
                walk.standing = {event.value: max(walk.standing[event.value], RANKS["person"])}
                walk.settle(seq, resolved=event.value)
            continue
        assertion, _item, value = event
        seen.add(value)
        old = values_of.get(assertion.supersedes or "")
        if old is not None and old != value:
            walk.standing.pop(old, None)
        rank = assertion.rank
        if not walk.standing or assertion.source == "outcome":
            walk.standing = {value: rank}
        else:
            others = [r for v, r in walk.standing.items() if v != value]
            top = max(others, default=-1)
            if not others or rank == top:
                walk.standing[value] = max(rank, walk.standing.get(value, 0))
            elif rank > top:
                walk.standing = {value: max(rank, walk.standing.get(value, 0))}
        walk.settle(seq)
    verdicts: dict[str, str] = {}
    for value in seen:
        if value not in walk.standing:
            verdicts[value] = "refuted"
        else:
            verdicts[value] = "disputed" if len(walk.standing) >= 2 else "held"
    found = list(walk.events)
    if walk.opened_at is not None:
        found.append((walk.opened_at, None, tuple(sorted(walk.values)), None))
    by_value: dict[str, list[str]] = {}
    for _a, item, value in assertions:
        by_value.setdefault(value, [])
        if item not in by_value[value]:
            by_value[value].append(item)
    disputes = tuple(
        DisputeEvent(
            key, opened, closed, values, tuple(sorted({i for v in values for i in by_value.get(v, [])})), res
        )
        for opened, closed, values, res in found
    )
    return verdicts, disputes


def _stale_flags(item: ItemFacts) -> list[PendingFlag]:
    # A flag is answered for this item by a newer observation or person statement of it.
    confirmed = [a.seq for a in item.assertions if a.source in CONFIRMING_SOURCES]
    return [f for f in item.flags if not any(seq > f.seq for seq in confirmed)]


def expiry_of(assertions: Sequence[LiveAssertion]) -> int | None:
    """The store-clock time the latest of these assertions runs out, None when it never does."""
    if not assertions:
        return None
    latest = max(assertions, key=lambda a: a.seq)
    return None if latest.reconfirm_after is None else latest.clock_at + latest.reconfirm_after


def stale_reasons(item: ItemFacts, clock: int, support: Sequence[LiveAssertion] | None = None) -> list[str]:
    """Why this item must be re-confirmed before it is answered on alone: pending flags and the clock."""
    reasons = [f"flag {f.id} pending: {f.why}" for f in _stale_flags(item)]
    expires = expiry_of(item.assertions if support is None else support)
    if expires is not None and clock >= expires:
        reasons.append(f"reconfirm_after ran out at clock {expires}")
    return reasons


def _unit(item: ItemFacts) -> str:
    return "k:" + item.key if item.key is not None else "i:" + item.id


def evaluate(
    items: Mapping[str, ItemFacts],
    resolutions: Mapping[str, Sequence[Resolution]],
    clock: int,
) -> tuple[dict[str, ItemVerdict], dict[str, tuple[DisputeEvent, ...]]]:
    """Statuses of every item of a closed set (a union of connected components) and its keys' disputes.

    Premises outside `items` are dead (retracted, skipped or never written). Items sharing a key are
    evaluated together after everything they rest on; where keys and premises form a cycle, the
    earliest-learned group goes first and sees the rest as cautious hints.
    """
    verdicts: dict[str, ItemVerdict] = {}
    units: dict[str, list[ItemFacts]] = {}
    for item in items.values():
        if not item.assertions:
            verdicts[item.id] = ItemVerdict("retracted", reasons=("no live assertion",))
        else:
            units.setdefault(_unit(item), []).append(item)
    unit_of = {item.id: u for u, members in units.items() for item in members}
    superseded_by: dict[str, list[tuple[str, LiveAssertion]]] = {}
    after: dict[str, set[str]] = {u: set() for u in units}
    waiting: dict[str, int] = {u: 0 for u in units}
    for u, members in units.items():
        for item in members:
            for a in item.assertions:
                for before in (*a.premises,):
                    bu = unit_of.get(before)
                    if bu is not None and bu != u and u not in after[bu]:
                        after[bu].add(u)
                        waiting[u] += 1
                if a.supersedes is not None:
                    superseded_by.setdefault(a.supersedes, []).append((item.id, a))
                target = unit_of.get(a.supersedes or "")
                if target is not None and target != u and target not in after[u]:
                    after[u].add(target)
                    waiting[target] += 1
    first_seq = {u: min(a.seq for item in members for a in item.assertions) for u, members in units.items()}
    ready = [(first_seq[u], u) for u, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    done: set[str] = set()
    supported_of: dict[str, list[LiveAssertion]] = {}
    disputes: dict[str, tuple[DisputeEvent, ...]] = {}
    while len(done) < len(units):
        if not ready:
            # A cycle: release its earliest-learned group (deterministic in the entries alone).
            u = min((first_seq[u], u) for u in units if u not in done)[1]
            waiting[u] = 0
        else:
            u = heapq.heappop(ready)[1]
            if u in done:
                continue
        done.add(u)
        _evaluate_unit(units[u], items, resolutions, clock, verdicts, supported_of, disputes, superseded_by)
        for nxt in sorted(after[u]):
            if nxt in done:
                continue
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (first_seq[nxt], nxt))
    return verdicts, disputes


def _premise_status(
    premise: str, items: Mapping[str, ItemFacts], verdicts: Mapping[str, ItemVerdict]
) -> str | None:
    if premise in verdicts:
        return verdicts[premise].status
    return _PENDING if premise in items else None


def _evaluate_unit(
    members: list[ItemFacts],
    items: Mapping[str, ItemFacts],
    resolutions: Mapping[str, Sequence[Resolution]],
    clock: int,
    verdicts: dict[str, ItemVerdict],
    supported_of: dict[str, list[LiveAssertion]],
    disputes: dict[str, tuple[DisputeEvent, ...]],
    superseded_by: Mapping[str, list[tuple[str, LiveAssertion]]],
) -> None:
    grounded: dict[str, bool] = {}
    weak_premises: dict[str, list[str]] = {}
    for item in members:
        supported: list[LiveAssertion] = []
        grounded[item.id] = False
        weak: list[str] = []
        for a in item.assertions:
            statuses = [_premise_status(p, items, verdicts) for p in a.premises]
            if all(s in PRESENT_STATUSES or s == _PENDING for s in statuses):
                supported.append(a)
                if all(s == "active" for s in statuses):
                    grounded[item.id] = True
                else:
                    weak += [p for p, s in zip(a.premises, statuses, strict=True) if s != "active"]
        supported_of[item.id] = supported
        weak_premises[item.id] = sorted(set(weak))
    walked: dict[str, str] = {}
    key = members[0].key
    if key is not None:
        on_key = [(a, item.id, item.value) for item in members for a in supported_of[item.id]]
        values_of = {item.id: item.value for item in members}
        walked, events = walk_key(key, on_key, resolutions.get(key, ()), values_of)
        disputes[key] = events
    for item in members:
        supported = supported_of[item.id]
        if not supported:
            verdicts[item.id] = ItemVerdict("retracted", reasons=("nothing it rests on is present",))
            continue
        support = tuple(a.seq for a in supported)
        best = max(supported, key=lambda a: (a.rank, a.seq))
        latest = max(a.seq for a in supported)
        superseders = [
            a
            for other, a in superseded_by.get(item.id, ())
            if other != item.id and a.seq > latest and a in supported_of.get(other, ())
        ]
        stale = stale_reasons(item, clock, supported)
        expires = expiry_of(supported)
        reasons: list[str] = []
        if superseders:
            status = "refuted"
            reasons.append(f"superseded at {min(s.seq for s in superseders)}")
        elif walked.get(item.value) == "refuted":
            status = "refuted"
            reasons.append("another value stands on its key")
        elif walked.get(item.value) == "disputed":
            status = "disputed"
            reasons.append("its key is disputed")
        elif item.retired_at is not None and item.retired_at > latest:
            status = "expired"
            reasons.append(f"retired at {item.retired_at}")
        elif expires is not None and clock >= expires:
            status = "expired"
            reasons.append(f"reconfirm_after ran out at clock {expires}")
        else:
            if item.kind in BEHAVIOUR_KINDS and not item.promoted:
                reasons.append(f"not promoted: {item.held_why or 'held by a gate'}")
            if not grounded[item.id]:
                reasons.append("rests on " + ", ".join(weak_premises[item.id]) + ", not active")
            reasons += [r for r in stale if r.startswith("flag ")]
            status = "hypothesis" if reasons else "active"
        verdicts[item.id] = ItemVerdict(status, support, best, tuple(reasons), bool(stale), expires)
