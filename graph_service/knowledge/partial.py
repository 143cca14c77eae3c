"""A knowledge entry applied on only what its rules read, found as they read it. Pure.

Whole components are no region for a write: on the benchmark's mix every fact's premises reach into the
last fifty, so one component holds 95% of the store's items (docs/stateless-path.md), while incremental
evaluation (incremental.propagate) re-decides about three units per write. What a write reads is known
only as its rules run: an item's dependents are read once its verdict changes, a unit's done time once the
schedule reaches it. So the entry is applied on a scratch state whose maps hold only what has been
fetched; reading anything else raises NeedMore naming it, and the application starts again, from the
state before the entry, once it is fetched (`apply_on_what_it_reads`). An application that ends read only
what it was given, so it did what it does on the whole store's state.

Each part is fetched whole for the key asked: an item's record (with its assertions, taken back or not),
the ids of every item on a key, every item citing an item (`dependents_of`) or superseding it
(`superseded_by`), a flag's record with every item it covers, a key's dispute events and resolutions, a
unit's done time (incremental.Order; its first position and predecessors are derived from its items, see
`scratch_state`, so the graph keeps only the done time, on the unit's Unit node), an item's pending expiry
times, the pairs a tick takes from the expiry queue (knowledge.expiry; Due nodes in the graph), the items on
a subject or in a scope entry (what a snapshot and a flag over a scope read; learning an item adds to them
blind, see BlindIndex), and the store's running fingerprint (read only where its value is: a snapshot). The
store clock is given with the first fetch. What the rules only write (the open disputes of the keys fetched,
refusals) is kept in the scratch state, not read. Reading every item (a flag over an empty scope, a
snapshot of everything) raises NeedMore for the whole part: such a write touches the whole store.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graph_service.domain import Applied, Draft
from graph_service.journal.chain import Entry
from graph_service.knowledge.as_of import knowledge_ops as carried_ops
from graph_service.knowledge.expiry import ExpiryQueue
from graph_service.knowledge.fingerprint import RunningFingerprint, combine
from graph_service.knowledge.incremental import Order, first_learned, predecessors, unit_of
from graph_service.knowledge.records import FlagRecord, ItemRecord, dispute_id
from graph_service.knowledge.rules import DisputeEvent, Resolution
from graph_service.knowledge.state import KnowledgeState

# The parts a scratch state reads, each a map from its key.
ITEMS, ON_KEY, DEPENDENTS, SUPERSEDED_BY, FLAGS, DISPUTES, RESOLUTIONS, UNIT_TIME, PENDING, DUE = (
    "items", "on_key", "dependents", "superseded_by", "flags", "disputes", "resolutions", "unit_time", "pending",
    "due")
SUBJECT, SCOPE, FINGERPRINT = "subject", "scope", "fingerprint"
PARTS = (ITEMS, ON_KEY, DEPENDENTS, SUPERSEDED_BY, FLAGS, DISPUTES, RESOLUTIONS, UNIT_TIME, PENDING, DUE, SUBJECT,
         SCOPE, FINGERPRINT)
STORE = "knowledge"  # the one key of FINGERPRINT: the whole store's running sum
MAX_ROUNDS = 10_000


class NeedMore(LookupError):
    """The scratch state was asked for what it was not given: `part` at `key` (WHOLE: every key)."""

    def __init__(self, part: str, key: Hashable) -> None:
        super().__init__(f"{part}[{key!r}] was not fetched")
        self.part, self.key = part, key


WHOLE = "<every key>"


class PartialMap(dict):  # type: ignore[type-arg]
    """A map holding some keys of the whole store's: a key it was given (present or known absent) reads as
    the whole map would; any other raises NeedMore. Writing a key makes it known (the rules then own it)."""

    def __init__(self, part: str, data: Mapping[Any, Any], known: Iterable[Any]) -> None:
        super().__init__(data)
        self.part = part
        self.known = set(known) | set(data)

    def _check(self, key: Any) -> None:
        if key not in self.known:
            raise NeedMore(self.part, key)

    def __getitem__(self, key: Any) -> Any:
        self._check(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._check(key)
        return super().__contains__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().setdefault(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._check(key)
        return super().pop(key, *default)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.known.add(key)
        super().__setitem__(key, value)

    def update(self, *others: Any, **more: Any) -> None:
        for key, value in dict(*others, **more).items():
            self[key] = value

    # Whole-map reads: the rules of a write with a region never make them (a scope, a tick, a snapshot do).
    def __iter__(self) -> Iterator[Any]:
        raise NeedMore(self.part, WHOLE)

    def __len__(self) -> int:
        raise NeedMore(self.part, WHOLE)

    def keys(self) -> Any:
        raise NeedMore(self.part, WHOLE)

    def values(self) -> Any:
        raise NeedMore(self.part, WHOLE)

    def items(self) -> Any:
        raise NeedMore(self.part, WHOLE)


class BlindIndex(PartialMap):
    """An index of item ids by a key (the items on a subject, or in a scope entry) that the rules add to when
    they learn an item, and read only for a snapshot or a flag over a scope: reading a key needs it fetched
    (NeedMore otherwise), but adding to a key not fetched writes blind, into a set of its own, since an
    application that goes on to read that key starts again with it fetched."""

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self.known:
            return set() if default is None else default
        return super().setdefault(key, default)


class PartialFingerprint(RunningFingerprint):
    """The running fingerprint of a scratch state: the changes its application makes, added to the store's
    sum (FINGERPRINT), which is read only when the value is (a snapshot records it)."""

    def __init__(self, fetched: tuple[int, int] | None) -> None:
        super().__init__()
        self._base = fetched

    def value(self) -> str:
        if self._base is None:
            raise NeedMore(FINGERPRINT, STORE)
        return combine(self._base[0] + self.total, self._base[1] + self.count)


class PartialExpiryQueue(ExpiryQueue):
    """The expiry queue of a scratch state: an item's pending times are a part (`PENDING`, read when the rules
    queue it), and a tick's due pairs another (`DUE`, keyed by the clock it moves to: every pair queued after
    the fetched clock and at or before that one, by time). Queuing adds to a heap of its own, which a tick
    never reads (a pair queued in an entry is ahead of the clock it runs at)."""

    def __init__(self, pending: Mapping[str, Any], due: Mapping[int, Any]) -> None:
        super().__init__()
        self.pending = PartialMap(PENDING, {k: set(v) for k, v in pending.items() if v}, pending)
        self._fetched_due = due

    def _due_upto(self, clock: int) -> list[tuple[int, str]]:
        if clock not in self._fetched_due:
            raise NeedMore(DUE, clock)
        return sorted(self._fetched_due[clock])


class DerivedMap(PartialMap):
    """A map whose value at a key is worked out the first time the key is read (`derive` gives whether the
    key is present, and its value; it may raise NeedMore for what it reads), then held as any other."""

    def __init__(self, part: str, derive: Callable[[Any], tuple[bool, Any]]) -> None:
        super().__init__(part, {}, ())
        self._derive = derive

    def _check(self, key: Any) -> None:
        if key not in self.known:
            present, value = self._derive(key)
            self.known.add(key)
            if present:
                dict.__setitem__(self, key, value)


@dataclass
class Fetched:
    """What has been fetched of the store so far, part by part (a key with None: known to be absent)."""

    clock: int = 0
    parts: dict[str, dict[Any, Any]] = field(default_factory=lambda: {part: {} for part in PARTS})

    def add(self, part: str, found: Mapping[Any, Any]) -> None:
        self.parts[part].update(found)

    def count(self, part: str) -> int:
        return len(self.parts[part])


def _present(found: Mapping[Any, Any]) -> dict[Any, Any]:
    return {k: v for k, v in found.items() if v is not None}


def _item_copy(rec: ItemRecord | None) -> ItemRecord | None:
    # What applying changes in place: the record's fields (rebound), its flags; the rest is immutable.
    if rec is None:
        return None
    out = copy.copy(rec)
    out.flags = set(rec.flags)
    return out


def _flag_copy(flag: FlagRecord | None) -> FlagRecord | None:
    if flag is None:
        return None
    out = copy.copy(flag)
    out.covers = set(flag.covers)
    return out


def scratch_state(fetched: Fetched) -> KnowledgeState:
    """A fresh knowledge state holding exactly what was fetched (copies of what applying changes in place:
    records, flags and the sets of ids; the assertions, verdicts, events and resolutions are immutable).

    Its order's first positions and predecessors are derived, unit by unit as they are asked for, from a
    second such state that is never applied to: a scheduled unit's are its own items' as the entries
    before this one left them (first_learned, predecessors), so the graph keeps only the done times."""
    state = _fresh_state(fetched)
    before = _fresh_state(fetched)

    def scheduled(unit: str) -> bool:
        return unit in before.order.time

    # Only a scheduled unit has them (Order keeps the three together); an unscheduled one reads nothing more.
    state.order.first = DerivedMap("unit_first", lambda u: (True, first_learned(before, u)) if scheduled(u)
                                   else (False, None))
    state.order.preds = DerivedMap("unit_preds", lambda u: (True, frozenset(predecessors(before, u)))
                                   if scheduled(u) else (False, None))
    return state


def _fresh_state(fetched: Fetched) -> KnowledgeState:
    parts = dict(fetched.parts)
    parts[ITEMS] = {k: _item_copy(v) for k, v in parts[ITEMS].items()}
    parts[FLAGS] = {k: _flag_copy(v) for k, v in parts[FLAGS].items()}
    state = KnowledgeState(incremental=True)
    state.clock = fetched.clock
    items: dict[str, ItemRecord] = _present(parts[ITEMS])
    state.items = PartialMap(ITEMS, items, parts[ITEMS])
    state.by_key = PartialMap(ON_KEY, {k: set(v) for k, v in _present(parts[ON_KEY]).items() if v}, parts[ON_KEY])
    state.dependents_of = PartialMap(DEPENDENTS, {k: set(v) for k, v in parts[DEPENDENTS].items() if v},
                                     parts[DEPENDENTS])
    state.superseded_by = PartialMap(SUPERSEDED_BY, {k: set(v) for k, v in parts[SUPERSEDED_BY].items() if v},
                                     parts[SUPERSEDED_BY])
    flags: dict[str, FlagRecord] = _present(parts[FLAGS])
    state.flags = PartialMap(FLAGS, flags, parts[FLAGS])
    events: dict[str, tuple[DisputeEvent, ...]] = {k: v for k, v in parts[DISPUTES].items() if v}
    state.dispute_events = PartialMap(DISPUTES, events, parts[DISPUTES])
    state.open_disputes = {dispute_id(e): e for es in events.values() for e in es if e.open}
    resolutions: dict[str, list[Resolution]] = {k: list(v) for k, v in parts[RESOLUTIONS].items() if v}
    state.resolutions = PartialMap(RESOLUTIONS, resolutions, parts[RESOLUTIONS])
    order = Order()
    order.time = PartialMap(UNIT_TIME, _present(parts[UNIT_TIME]), parts[UNIT_TIME])
    state.order = order
    state.by_subject = BlindIndex(SUBJECT, {k: set(v) for k, v in parts[SUBJECT].items() if v}, parts[SUBJECT])
    state.by_scope = BlindIndex(SCOPE, {k: set(v) for k, v in parts[SCOPE].items() if v}, parts[SCOPE])
    state._fingerprint = PartialFingerprint(parts[FINGERPRINT].get(STORE))
    state.expiry = PartialExpiryQueue(parts[PENDING], parts[DUE])
    return state


@dataclass(frozen=True)
class Wanted:
    """What an application stopped for: one part at one key."""

    part: str
    key: Hashable


@dataclass
class RegionApplied:
    """What applying the entry's knowledge operations did, each in turn, and what it read to do it."""

    applied: list[Applied]
    fetched: Fetched
    rounds: int
    scheduled: list[dict[str, int | None]]
    """Each entry's changes to the units' done times (KnowledgeState.scheduled), what the graph keeps."""
    expiries: list[dict[tuple[str, int], bool]]
    """Each entry's changes to the expiry queue (ExpiryQueue.changes), what the graph keeps."""


T = TypeVar("T")


def _on_what_it_reads(run: Callable[[KnowledgeState], T], fetched: Fetched
                      ) -> Generator[Wanted, Mapping[str, Mapping[Any, Any]], tuple[T, int]]:
    """Run `run` on a scratch state of what has been fetched, again each time it reads what was not, after
    yielding that part and adding what is sent back (see apply_on_what_it_reads); its value and the runs."""
    for rounds in range(1, MAX_ROUNDS + 1):
        state = scratch_state(fetched)
        try:
            value = run(state)
        except NeedMore as missing:
            if missing.key == WHOLE:
                raise
            found = yield Wanted(missing.part, missing.key)
            if missing.key not in found.get(missing.part, {}):
                raise NeedMore(missing.part, missing.key) from None
            for part, entries in found.items():
                fetched.add(part, entries)
            continue
        return value, rounds
    raise RuntimeError(f"a run on what it reads did not end in {MAX_ROUNDS} rounds")


def apply_on_what_it_reads(knowledge_ops: list[Entry], fetched: Fetched | None = None
                           ) -> Generator[Wanted, Mapping[str, Mapping[Any, Any]], RegionApplied]:
    """Apply these knowledge entries (one journal entry's: itself, or an answer's operations at its position)
    in turn on a scratch state, yielding each part it reads that has not been fetched and taking back what
    the store holds, as a map from part to {key: what is there} (the key asked, and any more the caller
    chose to send, of any part, so one round trip can bring what the next reads will ask for: a key with
    None is known to be absent), until an application runs to its end. Returns what each entry applied, what
    was fetched and how many applications it took. Raises what applying raises, and NeedMore for a part
    the caller did not send when asked."""
    fetched = fetched or Fetched()

    def apply_all(state: KnowledgeState) -> tuple[list[Applied], list[dict[str, int | None]],
                                                   list[dict[tuple[str, int], bool]]]:
        applied, scheduled, expiries = [], [], []
        for entry in knowledge_ops:
            applied.append(state.apply(entry))
            scheduled.append(dict(state.scheduled))
            expiries.append(dict(state.expiry.changes))
        return applied, scheduled, expiries

    (applied, scheduled, expiries), rounds = yield from _on_what_it_reads(apply_all, fetched)
    return RegionApplied(applied, fetched, rounds, scheduled, expiries)


@dataclass
class RegionPlanned:
    """What a planner drafted on what it read (or the refusal it raised), and what it read to do it."""

    draft: Draft
    fetched: Fetched
    rounds: int


def plan_on_what_it_reads(plan: Callable[[KnowledgeState], Draft], fetched: Fetched | None = None
                          ) -> Generator[Wanted, Mapping[str, Mapping[Any, Any]], RegionPlanned]:
    """Run a knowledge planner (knowledge.planning: it reads the state and changes nothing) on a scratch
    state, fetching what it reads as apply_on_what_it_reads does: the draft it gives on the whole store's
    state, or the UserError, NotFound or Conflict it raises there."""
    fetched = fetched or Fetched()
    draft, rounds = yield from _on_what_it_reads(plan, fetched)
    return RegionPlanned(draft, fetched, rounds)


def _at(knowledge: KnowledgeState, part: str, key: Hashable) -> Any:
    """The whole store's state at `key` of `part`: what a read of the graph gives there."""
    order = knowledge.order
    return {
        ITEMS: lambda: knowledge.items.get(key),
        ON_KEY: lambda: set(knowledge.by_key.get(key, ())),
        DEPENDENTS: lambda: set(knowledge.dependents_of.get(key, ())),
        SUPERSEDED_BY: lambda: set(knowledge.superseded_by.get(key, ())),
        FLAGS: lambda: knowledge.flags.get(key),
        DISPUTES: lambda: knowledge.dispute_events.get(key, ()),
        RESOLUTIONS: lambda: list(knowledge.resolutions.get(key, ())),
        UNIT_TIME: lambda: order.time.get(key),
        PENDING: lambda: set(knowledge.expiry.pending.get(key, ())),
        SUBJECT: lambda: set(knowledge.by_subject.get(key, ())),
        SCOPE: lambda: set(knowledge.by_scope.get(key, ())),
        FINGERPRINT: lambda: knowledge.fingerprint_sum(),
        DUE: lambda: sorted(pair for pair in knowledge.expiry.heap if pair[0] <= key),
    }[part]()


def read_with(rec: ItemRecord) -> list[tuple[str, Hashable]]:
    """What the rules read next of an item once they have read it, for a source to send in the same round
    trip: its dependents and superseders, its unit's done time, its pending expiry times, its flags, and its
    key's items, disputes and resolutions."""
    more: list[tuple[str, Hashable]] = [(DEPENDENTS, rec.id), (SUPERSEDED_BY, rec.id), (UNIT_TIME, unit_of(rec)),
                                        (PENDING, rec.id), *((FLAGS, f) for f in sorted(rec.flags))]
    if rec.key is not None:
        more += [(ON_KEY, rec.key), (DISPUTES, rec.key), (RESOLUTIONS, rec.key)]
    return more


def whole_state_answer(knowledge: KnowledgeState, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
    """What was asked, with an item what `read_with` names, and with the items of a subject or a scope entry
    each item and what it names (the rules read them next), as the graph's reader sends them."""
    found: dict[str, dict[Any, Any]] = {part: {key: _at(knowledge, part, key)}}
    ids = [key] if part == ITEMS else sorted(found[part][key]) if part in (SUBJECT, SCOPE) else []
    for item_id in ids:
        rec = knowledge.items.get(item_id)
        found.setdefault(ITEMS, {})[item_id] = rec
        for other, at in read_with(rec) if rec is not None else ():
            found.setdefault(other, {})[at] = _at(knowledge, other, at)
    return found


def operations_of(entry: Entry) -> list[Entry]:
    """The knowledge entries one journal entry applies at its position: itself, or an answer's operations."""
    return [Entry(seq=entry.seq, op=op, by=entry.by, at=entry.at, payload=payload)
            for op, payload in carried_ops(entry.op, entry.payload)]


Answer = Callable[[str, Hashable], Mapping[str, Mapping[Any, Any]]]


def answering(steps: Generator[Wanted, Mapping[str, Mapping[Any, Any]], T], answer: Answer) -> T:
    """Drive a run on what it reads (apply_ or plan_on_what_it_reads), each part it asks for answered by
    `answer(part, key)` (a map from part to {key: what is there}); its value."""
    try:
        wanted = next(steps)
        while True:
            wanted = steps.send(answer(wanted.part, wanted.key))
    except StopIteration as done:
        return done.value


def apply_answering(entry: Entry, clock: int, answer: Answer) -> RegionApplied:
    """`apply_on_what_it_reads` for one journal entry's knowledge operations, at store clock `clock`, each
    part it asks for answered by `answer`."""
    return answering(apply_on_what_it_reads(operations_of(entry), Fetched(clock=clock)), answer)


def apply_from_whole_state(knowledge: KnowledgeState, entry: Entry) -> RegionApplied:
    """Apply one journal entry's knowledge operations on what they read, fetched from a whole store's
    knowledge state (which it leaves as it was): the reference a read of the graph is checked against, and
    what measures the reads a write needs."""
    return apply_answering(entry, knowledge.clock, lambda part, key: whole_state_answer(knowledge, part, key))


def plan_from_whole_state(knowledge: KnowledgeState, plan: Callable[[KnowledgeState], Draft]) -> RegionPlanned:
    """Run a planner on what it reads, fetched from a whole store's knowledge state: the reference a read of
    the graph is checked against."""
    fetched = Fetched(clock=knowledge.clock)
    return answering(plan_on_what_it_reads(plan, fetched), lambda part, key: whole_state_answer(knowledge, part, key))
