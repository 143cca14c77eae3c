"""A knowledge entry applied, or a knowledge request planned, on only what its rules read, read as they read
it. Pure: what is read comes from a source the caller gives (a function), never from a driver.

Whole components are no region for a write: on the benchmark's mix every fact's premises reach into the
last fifty, so one component holds 95% of the store's items (docs/stateless-path.md), while incremental
evaluation (incremental.propagate) re-decides about three units per write. What a write reads is known
only as its rules run: an item's dependents are read once its verdict changes, a unit's done time once the
schedule reaches it. So the entry is applied on a scratch state whose maps hold only what has been read;
reading any other key reads it from the source first (`Reader`), as the store held it before the entry, so
the application runs once, to its end, and does what it does on the whole store's state.

Each part is fetched whole for the key asked: an item's record (with its assertions, taken back or not),
the ids of every item on a key, every item citing an item (`dependents_of`) or superseding it
(`superseded_by`), a flag's record with every item it covers, a key's dispute events and resolutions, a
unit's done time (incremental.Order; its first position and predecessors are derived from its items, see
`scratch_state`, so the graph keeps only the done time, on the unit's Unit node), an item's pending expiry
times, the pairs a tick takes from the expiry queue (knowledge.expiry; Due nodes in the graph), the items on
a subject or in a scope entry (what a snapshot and a flag over a scope read; learning an item adds to them
blind, see BlindIndex), the store's running fingerprint (read only where its value is: a snapshot), and a
dispute's key by its id (what a question about it names). The store clock is given at the start. What the
rules only write (the open disputes of the keys fetched, refusals) is kept in the scratch state, not read.
Reading every item (a flag over an empty scope, a snapshot of everything) reads the whole part, from a source
that gives it (partial_reads.WHOLE; NeedMore from one that does not): such a write touches the whole store.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graph_service.digest_sum import combine
from graph_service.domain import Applied, Draft
from graph_service.journal.chain import Entry
from graph_service.knowledge.as_of import knowledge_ops as carried_ops
from graph_service.knowledge.expiry import ExpiryQueue
from graph_service.knowledge.fingerprint import RunningFingerprint
from graph_service.knowledge.records import FlagRecord, ItemRecord, dispute_id
from graph_service.knowledge.rules import DisputeEvent
from graph_service.knowledge.schedule import Order
from graph_service.knowledge.state import KnowledgeState
from graph_service.knowledge.units import first_learned, predecessors, unit_of
from graph_service.partial_reads import (
    WHOLE,
    Answer,
    AnswerMany,
    DerivedMap,
    Fetched,
    NeedMore,
    PartialMap,
    Reader,
    _as_is,
    _as_list,
    _as_set,
    answer_each,
)

# The parts a scratch state reads, each a map from its key.
ITEMS, ON_KEY, DEPENDENTS, SUPERSEDED_BY, FLAGS, DISPUTES, RESOLUTIONS, UNIT_TIME, PENDING, DUE = (
    "items", "on_key", "dependents", "superseded_by", "flags", "disputes", "resolutions", "unit_time", "pending",
    "due")
SUBJECT, SCOPE, FINGERPRINT, DISPUTE_KEY = "subject", "scope", "fingerprint", "dispute_key"
PARTS = (ITEMS, ON_KEY, DEPENDENTS, SUPERSEDED_BY, FLAGS, DISPUTES, RESOLUTIONS, UNIT_TIME, PENDING, DUE, SUBJECT,
         SCOPE, FINGERPRINT, DISPUTE_KEY)
STORE = "knowledge"  # the one key of FINGERPRINT: the whole store's running sum


class BlindIndex(PartialMap):
    """An index of item ids by a key (the items on a subject, or in a scope entry) that the rules add to when
    they learn an item, and read only for a snapshot or a flag over a scope: reading a key reads it, but
    adding to a key not read writes blind, into a set of its own, merged with the store's when it is read."""

    def __init__(self, part: str, reader: Reader | None) -> None:
        super().__init__(part, reader, _as_set)
        self._blind: dict[Any, set[Any]] = {}

    def absorb(self, found: Mapping[Any, Any]) -> None:
        super().absorb({k: set(v or ()) | self._blind.pop(k, set()) for k, v in found.items()
                        if k not in self.known})

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self.known:
            return self._blind.setdefault(key, set() if default is None else default)
        return super().setdefault(key, default)


class DisputesMap(PartialMap):
    """The disputes of each key (DISPUTES): what is absorbed also enters the state's open disputes, as a
    whole state holds them beside the events."""

    def __init__(self, reader: Reader | None, open_disputes: dict[str, DisputeEvent]) -> None:
        super().__init__(DISPUTES, reader)
        self.open_disputes = open_disputes

    def absorb(self, found: Mapping[Any, Any]) -> None:
        fresh = {k: v for k, v in found.items() if k not in self.known}
        super().absorb(fresh)
        self.open_disputes.update({dispute_id(e): e for events in fresh.values() for e in events or () if e.open})


class PartialFingerprint(RunningFingerprint):
    """The running fingerprint of a scratch state: the changes its application makes, added to the store's
    sum (FINGERPRINT), which is read only when the value is (a snapshot records it)."""

    def __init__(self, reader: Reader | None) -> None:
        super().__init__()
        self.reader = reader
        self._base: tuple[int, int] | None = None

    def absorb(self, found: Mapping[Any, Any]) -> None:
        if self._base is None and STORE in found:
            self._base = found[STORE]

    @property
    def base(self) -> tuple[int, int] | None:
        """The store's (digest sum, count) this state's changes are added to; None until it is read."""
        return self._base

    def value(self) -> str:
        if self._base is None:
            if self.reader is None:
                raise NeedMore(FINGERPRINT, STORE)
            self.reader.read(FINGERPRINT, STORE)
        assert self._base is not None
        return combine(self._base[0] + self.total, self._base[1] + self.count)


class PartialExpiryQueue(ExpiryQueue):
    """The expiry queue of a scratch state: an item's pending times are a part (`PENDING`, read when the rules
    queue it), and a tick's due pairs another (`DUE`, keyed by the clock it moves to: every pair queued after
    the fetched clock and at or before that one, by time). Queuing adds to a heap of its own. A tick takes the
    pairs due from both: the store's, but those an earlier tick on this state took, and the heap's, which
    entries applied before it on this state queued (a pair queued in the tick's own entry is ahead of it)."""

    def __init__(self, reader: Reader | None) -> None:
        super().__init__()
        self.pending = PartialMap(PENDING, reader, _as_set)
        self.due = PartialMap(DUE, reader, sorted)
        self._ticked: int | None = None  # the clock the last tick on this state moved to

    def _due_upto(self, clock: int) -> list[tuple[int, str]]:
        ticked = self._ticked
        stored = [pair for pair in self.due.get(clock, ()) if ticked is None or pair[0] > ticked]
        self._ticked = clock if ticked is None else max(ticked, clock)
        return sorted(stored + super()._due_upto(clock))


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


def scratch_state(reader: Reader | None, clock: int) -> KnowledgeState:
    """A fresh knowledge state at store clock `clock` whose maps hold what `reader` fetches, read as the rules
    ask for it (each state keeps copies of what applying changes in place: records, flags and the sets of
    ids; the assertions, verdicts, events and resolutions are immutable). Without a reader, reading anything
    raises NeedMore.

    Its order's first positions and predecessors are derived, unit by unit as they are asked for, from a
    second such state that is never applied to: a scheduled unit's are its own items' as the entries
    before this one left them (first_learned, predecessors), so the graph keeps only the done times."""
    state = _fresh_state(reader, clock)
    before = _fresh_state(reader, clock, copied=False)  # never applied to: it may share what was read

    def scheduled(unit: str) -> bool:
        return unit in before.order.time

    # Only a scheduled unit has them (Order keeps the three together); an unscheduled one reads nothing more.
    state.order.first = DerivedMap("unit_first", lambda u: (True, first_learned(before, u)) if scheduled(u)
                                   else (False, None))
    state.order.preds = DerivedMap("unit_preds", lambda u: (True, frozenset(predecessors(before, u)))
                                   if scheduled(u) else (False, None))
    return state


def reading_state(reader: Reader, clock: int) -> KnowledgeState:
    """A knowledge state at store clock `clock` for a read: every key it is asked for is read through `reader`
    first (an item, a flag, a key's disputes); what reads every key raises NeedMore. Not for applying to: its
    order has no derived first positions (see `scratch_state`)."""
    return _fresh_state(reader, clock)


def _fresh_state(reader: Reader | None, clock: int, copied: bool = True) -> KnowledgeState:
    # `copied`: the records are copied as they are absorbed, as applying changes them in place.
    state = KnowledgeState(incremental=True)
    state.clock = clock
    state.items = PartialMap(ITEMS, reader, _item_copy if copied else _as_is)
    state.by_key = PartialMap(ON_KEY, reader, _as_set)
    state.dependents_of = PartialMap(DEPENDENTS, reader, _as_set)
    state.superseded_by = PartialMap(SUPERSEDED_BY, reader, _as_set)
    state.flags = PartialMap(FLAGS, reader, _flag_copy if copied else _as_is)
    state.open_disputes = {}
    state.dispute_events = DisputesMap(reader, state.open_disputes)
    state.dispute_keys = PartialMap(DISPUTE_KEY, reader)
    state.resolutions = PartialMap(RESOLUTIONS, reader, _as_list)
    state.order = Order()
    state.order.time = PartialMap(UNIT_TIME, reader)
    state.by_subject = BlindIndex(SUBJECT, reader)
    state.by_scope = BlindIndex(SCOPE, reader)
    state._fingerprint = PartialFingerprint(reader)
    state.expiry = PartialExpiryQueue(reader)
    if reader is not None:
        reader.register({ITEMS: state.items, ON_KEY: state.by_key, DEPENDENTS: state.dependents_of,
                         SUPERSEDED_BY: state.superseded_by, FLAGS: state.flags, DISPUTES: state.dispute_events,
                         RESOLUTIONS: state.resolutions, UNIT_TIME: state.order.time,
                         DISPUTE_KEY: state.dispute_keys, SUBJECT: state.by_subject,
                         SCOPE: state.by_scope, FINGERPRINT: state._fingerprint, PENDING: state.expiry.pending,
                         DUE: state.expiry.due})
    return state


def fingerprint_base(state: KnowledgeState) -> tuple[int, int] | None:
    """The store's (digest sum, count) a scratch state's running fingerprint adds its changes to; None until read."""
    fingerprint = state._fingerprint
    return fingerprint.base if isinstance(fingerprint, PartialFingerprint) else None


@dataclass(slots=True)
class RegionApplied:
    """What applying the entry's knowledge operations did, each in turn, and what it read to do it."""

    applied: list[Applied]
    fetched: Fetched
    reads: int
    """How many times it read from the source (each one round trip to the graph)."""
    scheduled: list[dict[str, int | None]]
    """Each entry's changes to the units' done times (KnowledgeState.scheduled), what the graph keeps."""
    expiries: list[dict[tuple[str, int], bool]]
    """Each entry's changes to the expiry queue (ExpiryQueue.changes), what the graph keeps."""
    fingerprints: list[tuple[int, int]] = field(default_factory=list)
    """After each entry, how far the entries so far moved the store's running fingerprint: (digest sum, count)
    to add to the store's before them (digest_sum.MODULUS); (0, 0) where they left it as it was."""


def apply_on_what_it_reads(knowledge_ops: list[Entry], answer: Answer, clock: int,
                           answer_many: AnswerMany | None = None) -> RegionApplied:
    """Apply these knowledge entries (one journal entry's: itself, or an answer's operations at its position)
    in turn on a scratch state at store clock `clock`, reading each part the rules ask for that has not been
    read from `answer` (which may send more than was asked, of any part, so one round trip can bring what
    the next reads will ask for). Returns what each entry applied, what was fetched and how many reads it
    took. Raises what applying raises, NeedMore for a part the source did not send when asked, and NeedMore
    for a whole part (a flag over everything, a snapshot of everything: they touch the whole store).
    `answer_many`: the source's answer at several keys at once, which the rules' read-aheads use (a round trip
    for the dependents of an item, not one each)."""
    reader = Reader(answer, Fetched(), answer_many)
    return apply_on(scratch_state(reader, clock), reader, knowledge_ops)


def apply_on(state: KnowledgeState, reader: Reader, knowledge_ops: list[Entry]) -> RegionApplied:
    """Apply these knowledge entries in turn on a scratch state reading through `reader` (scratch_state), which
    may have had entries applied before them (the state as they left it, not as the store held it before them:
    then `fetched` holds what they read too). Each entry's fingerprint is the state's running sum after it, the
    change since the state was made."""
    applied, scheduled, expiries, fingerprints = [], [], [], []
    for entry in knowledge_ops:
        applied.append(state.apply(entry))
        scheduled.append(dict(state.scheduled))
        expiries.append(dict(state.expiry.changes))
        fingerprints.append((state._fingerprint.total, state._fingerprint.count))
    return RegionApplied(applied, reader.fetched, reader.reads, scheduled, expiries, fingerprints)


@dataclass(slots=True)
class RegionPlanned:
    """What a planner drafted on what it read, and what it read to do it."""

    draft: Draft
    fetched: Fetched
    reads: int


def plan_on_what_it_reads(plan: Callable[[KnowledgeState], Draft], answer: Answer, clock: int,
                          answer_many: AnswerMany | None = None) -> RegionPlanned:
    """Run a knowledge planner (knowledge.planning: it reads the state and changes nothing) on a scratch state
    at store clock `clock`, reading what it asks for from `answer` as apply_on_what_it_reads does: the draft
    it gives on the whole store's state, or the UserError, NotFound or Conflict it raises there."""
    reader = Reader(answer, Fetched(), answer_many)
    draft = plan(scratch_state(reader, clock))
    return RegionPlanned(draft, reader.fetched, reader.reads)


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
        DISPUTE_KEY: lambda: knowledge.dispute_keys.get(key),
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


# What a part holds where it holds nothing, as a read of the graph gives it.
EMPTY: dict[str, Callable[[], Any]] = {DEPENDENTS: set, SUPERSEDED_BY: set, PENDING: set, UNIT_TIME: lambda: None,
                                       DISPUTES: tuple, RESOLUTIONS: list}


def shown_empty(part: str, key: Hashable, value: Any) -> list[tuple[str, Hashable]]:
    """The parts that what was read at `key` of `part` (`value`) shows to hold nothing, for a source to send
    with it at no cost: an item the store does not hold has no dependents, superseders, pending expiry times
    or unit of its own (an edge, a Due node or a unit reaches an item only once it is learned); a key no item
    is on has no done time, disputes or resolutions (each is about the key's items)."""
    if part == ITEMS and value is None:
        return [(DEPENDENTS, key), (SUPERSEDED_BY, key), (PENDING, key), (UNIT_TIME, "i:" + str(key))]
    if part == ON_KEY and not value:
        return [(UNIT_TIME, "k:" + str(key)), (DISPUTES, key), (RESOLUTIONS, key)]
    return []


def items_sent_with(part: str, key: Hashable, value: Any) -> list[Any]:
    """The items whose records (and `read_with`) a source sends with its answer at `key` of `part`: the item
    asked, or the items on a subject or in a scope entry (the rules read each of them next)."""
    return [key] if part == ITEMS else sorted(value) if part in (SUBJECT, SCOPE) else []


def answer_of(read: Callable[[str, Hashable], Any], part: str, key: Hashable,
              every_item: Callable[[], list[Any]] | None = None,
              read_items: Callable[[list[Any]], None] = lambda ids: None) -> dict[str, dict[Any, Any]]:
    """What a source answers at `key` of `part`, each part at a key as `read` gives it: what was asked, what that
    read shows to be empty (`shown_empty`), and with an item (the one asked, or the items of a subject or a scope
    entry) what the rules read next of it (`read_with`). At WHOLE of the items: every item (`every_item`; None
    where the source does not give them, and then nothing). `read_items` is told the items before they are read,
    so a source can read them together. The graph's reader and the whole state's reference both answer through
    this, so what one sends the other sends."""
    if key is WHOLE:
        if part != ITEMS or every_item is None:
            return {}
        found: dict[str, dict[Any, Any]] = {ITEMS: {WHOLE: None}}
        ids = every_item()
    else:
        value = read(part, key)
        found = {part: {key: value}}
        for other, at in shown_empty(part, key, value):
            found.setdefault(other, {})[at] = read(other, at)
        ids = items_sent_with(part, key, value)
    read_items(ids)
    for item_id in ids:
        rec = found.setdefault(ITEMS, {})[item_id] = read(ITEMS, item_id)
        for other, at in read_with(rec) if rec is not None else ():
            found.setdefault(other, {})[at] = read(other, at)
    return found


def whole_state_answer(knowledge: KnowledgeState, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
    """What the graph's reader sends (`answer_of`), from the whole state: the reference the partial reads are
    checked against. Every item at WHOLE, as a source of the graph gives it to writes."""
    return answer_of(lambda p, k: _at(knowledge, p, k), part, key, lambda: sorted(knowledge.items))


def whole_state_answer_many(knowledge: KnowledgeState, part: str, keys: list[Any]) -> dict[str, dict[Any, Any]]:
    """`whole_state_answer` at each of these keys, in one answer (as the graph's reader reads several items)."""
    return answer_each(lambda p, k: whole_state_answer(knowledge, p, k), part, keys)


def operations_of(entry: Entry) -> list[Entry]:
    """The knowledge entries one journal entry applies at its position: itself, or an answer's operations."""
    return [Entry(seq=entry.seq, op=op, by=entry.by, at=entry.at, payload=payload)
            for op, payload in carried_ops(entry.op, entry.payload)]


def apply_answering(entry: Entry, clock: int, answer: Answer,
                    answer_many: AnswerMany | None = None) -> RegionApplied:
    """`apply_on_what_it_reads` for one journal entry's knowledge operations."""
    return apply_on_what_it_reads(operations_of(entry), answer, clock, answer_many)


def apply_from_whole_state(knowledge: KnowledgeState, entry: Entry) -> RegionApplied:
    """Apply one journal entry's knowledge operations on what they read, fetched from a whole store's
    knowledge state (which it leaves as it was): the reference a read of the graph is checked against, and
    what measures the reads a write needs."""
    return apply_answering(entry, knowledge.clock, lambda part, key: whole_state_answer(knowledge, part, key),
                           lambda part, keys: whole_state_answer_many(knowledge, part, keys))


def plan_from_whole_state(knowledge: KnowledgeState, plan: Callable[[KnowledgeState], Draft]) -> RegionPlanned:
    """Run a planner on what it reads, fetched from a whole store's knowledge state: the reference a read of
    the graph is checked against."""
    return plan_on_what_it_reads(plan, lambda part, key: whole_state_answer(knowledge, part, key), knowledge.clock,
                                 lambda part, keys: whole_state_answer_many(knowledge, part, keys))
