"""What a knowledge entry's rules read, read from the graph: the state a write that holds no copy of the
store applies it on (docs/stateless-path.md).

Two readers. `apply_from_graph` answers knowledge.partial's parts as they are asked for (an item with what
the rules read next of it in one statement; a key's items, an item's dependents or superseders, a flag, a
key's disputes, a unit's done time, an item's pending expiry times asked on their own in one or two indexed
statements each; what a tick takes from the expiry queue by the index on its times), and reads the
store clock stored with the entry at the position (graph_service.journal.clock), so an entry costs what its
rules read, not what the store holds. `knowledge_region` reads the whole components of what the entry names
(graph_service.knowledge.region), walked level by level, with every tick: exact, but on a store whose facts
chain together a component is most of the store, so it is the reference, not the path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph_service.api import knowledge_as_of as parts
from graph_service.api.knowledge_as_of import knowledge_from_history, knowledge_position
from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.fingerprint_as_of import kept_sum_upto, node_sum_upto
from graph_service.history import HistoryMissing
from graph_service.journal.chain import Entry
from graph_service.knowledge.as_of import (
    ASSERTION_OPS,
    RESOLUTION_OPS,
    KnowledgeHistory,
    flags_at,
    items_at,
    knowledge_at,
)
from graph_service.knowledge.partial import (
    DEPENDENTS,
    DISPUTE_KEY,
    DISPUTES,
    DUE,
    EMPTY,
    FINGERPRINT,
    FLAGS,
    ITEMS,
    ON_KEY,
    PENDING,
    RESOLUTIONS,
    SCOPE,
    SUBJECT,
    SUPERSEDED_BY,
    UNIT_TIME,
    RegionApplied,
    RegionPlanned,
    answer_of,
    apply_answering,
    plan_on_what_it_reads,
    reading_state,
    shown_empty,
)
from graph_service.knowledge.records import FlagRecord, ItemRecord
from graph_service.knowledge.region import entry_region_start
from graph_service.knowledge.rules import DisputeEvent
from graph_service.knowledge.state import KnowledgeState, scope_id
from graph_service.knowledge.units import unit_of
from graph_service.partial_reads import Fetched, Reader, answer_each
from graph_service.projection import KEEPS_KNOWLEDGE
from graph_service.state import KNOWLEDGE_FINGERPRINT
from graph_service.storage.port import GraphPort
from graph_service.storage.walks import walk

# A knowledge component's edges, both ways: premises, shared keys, supersedes (KnowledgeState.neighbours).
ITEMS_A_STATEMENT = 500  # items read in one statement (each read brings what the rules read next of it)
COMPONENT_STEPS = (
    ("item_premises_step_upto", "DERIVED_FROM"),
    ("item_dependents_step_upto", "DERIVED_FROM"),
    ("item_same_key_step_upto", "SAME_KEY"),
    ("item_supersedes_step_upto", "SUPERSEDES"),
    ("item_superseded_by_step_upto", "SUPERSEDES"),
)
REGION_PARTS = frozenset({parts.ITEMS, parts.FLAGS, parts.CLOCK, parts.DISPUTES})


def region_members(graph: GraphPort, knowledge_ops: Iterable[tuple[str, Mapping[str, Any]]], upto: int) -> set[str]:
    """The ids of the whole components, as of position `upto`, that these knowledge operations touch (ids
    they name that no item had by then are kept: an entry may add them). RegionUnknown (from
    knowledge.region) for an operation whose rules read beyond what it names."""
    start = entry_region_start(knowledge_ops)
    seeds = set(start.items)
    if start.keys:
        asked = {"keys": sorted(start.keys)}
        seeds |= {r["id"] for r in graph.run("items_on_keys_upto", {"asked": asked, "upto": upto})}
    if start.flags:
        for row in graph.run("flag_covered_items_upto", {"flags": sorted(start.flags), "upto": upto}):
            if row["since_seq"] is None:
                raise HistoryMissing(upto)
            seeds.add(row["item"])
    return seeds | {reached.id for reached in walk(graph, seeds, COMPONENT_STEPS, upto=upto)}


def knowledge_region(graph: GraphPort, knowledge_ops: Iterable[tuple[str, Mapping[str, Any]]],
                     upto: int) -> KnowledgeState:
    """A knowledge state holding the region these operations' rules read, as the journal up to `upto` left
    it: applied the entry at `upto + 1` that carries them, it returns what the whole store's state returns
    (the same projection and result; its fingerprint and position are the region's, not the store's).
    RegionUnknown for an operation with no region yet; HistoryMissing where the store was written before
    history was kept."""
    ops_list = list(knowledge_ops)
    members = region_members(graph, ops_list, upto)
    return knowledge_from_history(graph, upto, REGION_PARTS, ids=sorted(members))


class BookkeepingMissing(UserError):
    """The store's graph does not keep what a write or a read of the knowledge reads beside the store's own
    nodes (written before this version kept it): reading it would be wrong, so it is refused."""

    def __init__(self) -> None:
        super().__init__("this store's graph was written before it kept what a write reads (Unit, Due, "
                         "Fingerprint and Scope nodes, each entry's clock); export its journal and load it into "
                         "a new store to derive them", field=None)


@dataclass(frozen=True)
class KnownStart:
    """What `write_reads_start` reads as of a position, where the caller knows it without a statement: the store
    clock after the entry there, and the knowledge store's running fingerprint (digest sum, count) as of it."""

    clock: int
    fingerprint: tuple[int, int]


class PartsFromGraph:
    """The parts of the knowledge store as of position `upto` that knowledge.partial asks for, read from the
    graph's history (one or two indexed statements a part; an item comes with what the rules read next of it,
    `partial.read_with`). BookkeepingMissing for a store whose graph does not keep what a write reads.
    `whole`: every item is read when the rules ask for them all (a write that touches every item); otherwise
    that raises NeedMore (a read that would, such as a snapshot of everything, runs apart instead). `known`: the
    clock and the fingerprint as of `upto`, when the caller knows them (a store whose graph keeps what a write
    reads: the caller has read it before), so the statement that reads them is not run."""

    def __init__(self, graph: GraphPort, upto: int, *, whole: bool = False, known: KnownStart | None = None) -> None:
        self.graph, self.upto, self.whole = graph, upto, whole
        self._read: dict[tuple[str, Any], Any] = {}
        if known is not None:
            self.clock, self._fingerprint = known.clock, known.fingerprint
            return
        rows = graph.run("write_reads_start", {"seq": upto, "fingerprint": KNOWLEDGE_FINGERPRINT})
        if not rows or not isinstance(rows[0]["keeps"], int) or rows[0]["keeps"] < KEEPS_KNOWLEDGE:
            raise BookkeepingMissing()
        start = rows[0]
        self.clock = 0 if upto == 0 else self._kept(start["clock"])
        # The running fingerprint as of `upto`, when nothing past it changed it (a write on the head): no
        # statement of its own when the rules ask for it. Kept apart from `_read`, which `forget` drops.
        self._fingerprint = node_sum_upto(start["total"], start["count"], start["fingerprint_seq"], upto)

    @staticmethod
    def _kept(value: Any) -> Any:
        # What a store that keeps the bookkeeping has on every entry; a missing one is a store tampered with.
        if value is None:
            raise BookkeepingMissing()
        return value

    def answer(self, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
        """What the store holds at `key` of `part` (None: nothing there), with an item what the rules read
        next of it, and with the items of a subject or a scope entry each of them and what they name (read
        in one statement: the rules read them next)."""
        return answer_of(self._part, part, key, self._every_item if self.whole else None, self.read_items)

    def forget(self) -> None:
        """Drop every part read so far (a later ask reads it again): for a source whose reader's states already
        hold what they were given (from_graph.knowledge.Run)."""
        self._read.clear()

    def _every_item(self) -> list[str]:
        # A write that touches every item (a flag over everything, a snapshot of everything) reads them all.
        return [r["id"] for r in self.graph.run("item_ids_upto", {"upto": self.upto})]

    def answer_many(self, part: str, keys: list[Any]) -> dict[str, dict[Any, Any]]:
        """`answer` at each of these keys, in one answer; items in one statement (`read_items`), the items on keys
        in one, any other part a key at a time."""
        if part == ITEMS:
            self.read_items(keys)
        elif part == ON_KEY:
            self._read_on_keys(keys)
        return answer_each(self.answer, part, keys)

    def _part(self, part: str, key: Any) -> Any:
        # Each part once: a key's items are read for its disputes and its resolutions too.
        if (part, key) not in self._read:
            self._read[(part, key)] = self._read_part(part, key)
        return self._read[(part, key)]

    def _read_part(self, part: str, key: Any) -> Any:
        upto = {"upto": self.upto}
        if part == ITEMS:
            self._read_items([key])
            return self._read[(ITEMS, key)]
        if part == SUBJECT:
            rows = self.graph.run("items_on_subject_upto", {**upto, "subject": key})
            # The node's `s` is a scalar's text too; the index holds items whose subject is this string.
            return {r["id"] for r in rows if json.loads(r["body"]).get("s") == key}
        if part == SCOPE:
            name, value = key
            return self._linked(self.graph.run("items_in_scope_upto", {"scope": scope_id(name, json.loads(value))}))
        if part == FINGERPRINT:
            return self._fingerprint_sum()
        if part == DISPUTE_KEY:  # a dispute opened by `upto` (its id ends with the position it opened at)
            rows = self.graph.run("dispute_by_id", {"id": key})
            found = rows[0]["dispute"] if rows else None
            return found["key"] if found is not None and found["opened_at"] <= self.upto else None
        if part == ON_KEY:
            self._read_on_keys([key])
            return self._read[(ON_KEY, key)]
        if part in (DEPENDENTS, SUPERSEDED_BY):
            step = "item_dependents_step_upto" if part == DEPENDENTS else "item_superseded_by_step_upto"
            return {r.id for r in walk(self.graph, [key], ((step, part),), max_depth=1, upto=self.upto)}
        if part == FLAGS:
            covers = self.graph.run("flag_covered_items_upto", {**upto, "flags": [key]})
            return self._flag(key, self.graph.run("flags_by_id_history_upto", {**upto, "ids": [key]}),
                              [{"item": c["item"], "since_seq": c["since_seq"]} for c in covers])
        if part in (DISPUTES, RESOLUTIONS):
            on_key = sorted(self._part(ON_KEY, key))
            self._disputes_of(key, parts.disputes_history(self.graph, self.upto, on_key) if on_key else [])
            return self._read[(part, key)]
        if part == UNIT_TIME:
            return self._done_time(self.graph.run("unit_history_upto", {**upto, "ids": [key]}))
        if part == PENDING:
            return {r["expires"] for r in self.graph.run("due_of_items_upto", {**upto, "ids": [key]})}
        if part == DUE:
            rows = self.graph.run("due_between_upto", {**upto, "after": self.clock, "until": key})
            return [(r["expires"], r["item"]) for r in rows]
        raise ValueError(f"{part!r} is not a part of the knowledge store")

    def _read_on_keys(self, keys: Iterable[Any]) -> None:
        """The items on those of these keys not read yet, in one statement, with what that shows to be empty."""
        wanted = [k for k in dict.fromkeys(keys) if (ON_KEY, k) not in self._read]
        if not wanted:
            return
        on_keys: dict[Any, set[str]] = {k: set() for k in wanted}
        for row in self.graph.run("items_on_keys_upto", {"upto": self.upto, "asked": {"keys": wanted}}):
            on_keys[row["key"]].add(row["id"])
        for key, on_key in on_keys.items():
            self._read[(ON_KEY, key)] = on_key
            self._know_empty(shown_empty(ON_KEY, key, on_key))

    def read_items(self, ids: Iterable[str]) -> None:
        """Read those of these items not read yet, in one statement for each ITEMS_A_STATEMENT of them (see
        `_read_items`)."""
        wanted = [i for i in ids if (ITEMS, i) not in self._read]
        for at in range(0, len(wanted), ITEMS_A_STATEMENT):
            self._read_items(wanted[at:at + ITEMS_A_STATEMENT])

    def _read_items(self, ids: list[str]) -> None:
        """The items' records, read in one statement with what the rules read next of each (`read_with`),
        which is kept for when they ask: as each part's own statement would give it."""
        if not ids:
            return
        rows = self.graph.run("item_reads_upto", {"upto": self.upto, "asked": {"ids": ids},
                                                  "payload_ops": list(ASSERTION_OPS),
                                                  "resolution_ops": list(RESOLUTION_OPS)})
        by_id = {row["id"]: row for row in rows if row["id"] is not None}
        by_key = {row["key"]: row for row in rows if row["id"] is None}  # a row for each key the items are on
        for item_id in ids:
            rec = self._read[(ITEMS, item_id)] = (
                self._item_read(item_id, by_id[item_id], by_key) if item_id in by_id else None)
            self._know_empty(shown_empty(ITEMS, item_id, rec))

    def read_records(self, ids: Iterable[str]) -> dict[str, dict[Any, Any]]:
        """The records of these items (None for one not written by `upto`) and of the flags covering them, as
        {ITEMS: {id: record}, FLAGS: {id: record}}, those not read yet read in one statement for each
        ITEMS_A_STATEMENT of them, without what the rules read next of each (`read_items` reads that too): for a
        read that shows items, whose reader is given them (Reader.give), so it asks for none of the rest."""
        wanted = list(dict.fromkeys(ids))
        unread = [i for i in wanted if (ITEMS, i) not in self._read]
        for at in range(0, len(unread), ITEMS_A_STATEMENT):
            asked = unread[at:at + ITEMS_A_STATEMENT]
            rows = self.graph.run("item_records_upto", {"upto": self.upto, "asked": {"ids": asked},
                                                        "payload_ops": list(ASSERTION_OPS)})
            by_id = {row["id"]: row for row in rows}
            for item_id in asked:
                rec = self._read[(ITEMS, item_id)] = (
                    self._record_read(item_id, by_id[item_id]) if item_id in by_id else None)
                self._know_empty(shown_empty(ITEMS, item_id, rec))
        records = {i: self._read[(ITEMS, i)] for i in wanted}
        flags = {f: self._part(FLAGS, f) for rec in records.values() if rec is not None for f in sorted(rec.flags)}
        return {ITEMS: records, FLAGS: flags}

    def _know_empty(self, parts: Iterable[tuple[str, Any]]) -> None:
        # What a read showed to hold nothing (`shown_empty`) is kept as read: it costs no statement of its own.
        for part, key in parts:
            self._read.setdefault((part, key), EMPTY[part]())

    def _record_read(self, item_id: str, row: Mapping[str, Any]) -> ItemRecord | None:
        """The item's record as of `upto` from its row's writes and flags, each flag's record kept (FLAGS)."""
        flags = [{"id": f["id"], **w} for f in row["flags"] for w in f["writes"]]
        covers = [{"flag": f["id"], "item": item_id, "since_seq": f["since_seq"]} for f in row["flags"]]
        for write in row["writes"]:
            self._kept(write["clock"])
        rec = items_at(KnowledgeHistory(upto=self.upto, items=[{"id": item_id, **w} for w in row["writes"]],
                                        flags=flags, covers=covers)).get(item_id)
        if rec is None:
            return None
        for flag in row["flags"]:
            if flag["id"] in rec.flags:
                self._read[(FLAGS, flag["id"])] = self._flag(flag["id"], flag["writes"], flag["covers"])
        return rec

    def _item_read(self, item_id: str, row: Mapping[str, Any],
                   by_key: Mapping[str, Mapping[str, Any]]) -> ItemRecord | None:
        rec = self._record_read(item_id, row)
        if rec is None:
            return None
        self._read[(DEPENDENTS, item_id)] = self._linked(row["dependents"])
        self._read[(SUPERSEDED_BY, item_id)] = self._linked(row["superseded_by"])
        self._read[(UNIT_TIME, unit_of(rec))] = (
            self._done_time(row["unit_writes"]) if row["unit_last"] is not None and row["unit_last"] > self.upto
            else row["unit_done"])
        self._read[(PENDING, item_id)] = set(row["pending"])
        if rec.key is not None:
            keyed = by_key[rec.key]  # the key's own row, one for all the items on it
            self._read[(ON_KEY, rec.key)] = set(keyed["on_key"])
            if (DISPUTES, rec.key) not in self._read:  # folded once a key
                disputes = {(d["id"], w["seq"]): {"id": d["id"], **w}
                            for d in keyed["disputes"] for w in d["writes"]}
                self._disputes_of(rec.key, list(disputes.values()))
        return rec

    def _fingerprint_sum(self) -> tuple[int, int]:
        """The knowledge store's running fingerprint (digest sum, count) as of `upto`: as the source's first
        statement read it, or folded from the node's history when a later entry had changed it by then."""
        if self._fingerprint is not None:
            return self._fingerprint
        return kept_sum_upto(self.graph, KNOWLEDGE_FINGERPRINT, self.upto)

    def _linked(self, edges: Iterable[Mapping[str, Any]]) -> set[str]:
        # The items at the other end of edges written by `upto` (as `walk` keeps them).
        if any(e["since"] is None for e in edges):
            raise HistoryMissing(self.upto)
        return {e["id"] for e in edges if e["since"] <= self.upto}

    def _done_time(self, writes: Iterable[Mapping[str, Any]]) -> int | None:
        done: int | None = None
        for row in sorted(writes, key=lambda r: r["seq"]):
            if row["changes"] is None:
                raise HistoryMissing(self.upto)
            done = json.loads(row["changes"]).get("done_time", done)
        return done

    def _flag(self, flag_id: str, writes: Iterable[Mapping[str, Any]],
              covers: Iterable[Mapping[str, Any]]) -> FlagRecord | None:
        covered = [{"flag": flag_id, **c} for c in covers]
        if any(c["since_seq"] is None for c in covered):
            raise HistoryMissing(self.upto)
        covered = [c for c in covered if c["since_seq"] <= self.upto]
        history = KnowledgeHistory(upto=self.upto, covers=covered, flags=[{"id": flag_id, **w} for w in writes])
        return flags_at(history).get(flag_id)

    def _disputes_of(self, key: str, rows: list[dict[str, Any]]) -> None:
        if not rows:  # most keys: no dispute was ever opened on them
            self._read[(DISPUTES, key)], self._read[(RESOLUTIONS, key)] = EMPTY[DISPUTES](), EMPTY[RESOLUTIONS]()
            return
        state = knowledge_at(KnowledgeHistory(upto=self.upto, disputes=rows))
        self._read[(DISPUTES, key)] = state.dispute_events.get(key, ())
        self._read[(RESOLUTIONS, key)] = list(state.resolutions.get(key, ()))


def apply_from_graph(graph: GraphPort, entry: Entry, upto: int,
                     source: PartsFromGraph | None = None) -> RegionApplied:
    """Apply one journal entry's knowledge operations on only what their rules read, each part read from the
    graph as of position `upto` (the entry before it) as it is asked for: what the entry does on the whole
    store's state (knowledge.partial), at the cost of what it reads. BookkeepingMissing for a store whose graph
    does not keep what a write reads; HistoryMissing where the store was written before history was kept.
    `source`: the parts already read as of `upto` (by the entry's plan), which are not read again."""
    if source is None or source.upto != upto:
        source = PartsFromGraph(graph, upto, whole=True)
    return apply_answering(entry, source.clock, source.answer, source.answer_many)


def plan_from_graph(graph: GraphPort, plan: Callable[[KnowledgeState], Draft], upto: int,
                    source: PartsFromGraph | None = None) -> RegionPlanned:
    """Run a knowledge planner on only what it reads, each part read from the graph as of position `upto`
    (the head it plans on) as it is asked for: the draft it gives on the whole store's state, or the refusal
    it raises there (knowledge.partial.plan_on_what_it_reads). `source`: the parts already read as of `upto`."""
    if source is None or source.upto != upto:
        source = PartsFromGraph(graph, upto, whole=True)
    return plan_on_what_it_reads(plan, source.answer, source.clock, source.answer_many)


class KnowledgeRead:
    """The knowledge store as of position `upto` for one read, read from the graph as it is asked for, never
    whole: an item with its flags and its key's disputes in one statement (several items in one, `items`), a
    flag with what it covers, and each kept for the rest of the read. What it gives is what the whole store's
    state gives at `upto` (records, staleness, flags, disputes); BookkeepingMissing for a store whose graph
    does not keep what a write reads."""

    def __init__(self, graph: GraphPort, upto: int) -> None:
        self.upto = upto
        self._source = PartsFromGraph(graph, upto)
        self._reader = Reader(self._source.answer, Fetched(), self._source.answer_many)
        self.state = reading_state(self._reader, self._source.clock)
        self._positioned = False  # the state's knowledge position is read only by what shows it

    def item(self, item_id: str) -> ItemRecord | None:
        """The item's record, None for an id never written by `upto`."""
        return self.state.items.get(item_id)

    def items(self, ids: Iterable[str]) -> dict[str, ItemRecord]:
        """The records of those of these items written by `upto`, by id, the ones not read yet in one statement."""
        wanted = list(dict.fromkeys(ids))
        self._source.read_items(wanted)
        return {i: rec for i in wanted if (rec := self.state.items.get(i)) is not None}

    def records(self, ids: Iterable[str]) -> dict[str, ItemRecord]:
        """`items`, for a read that shows them: the records (and the flags covering them, for `stale_reasons`)
        only, the ones not read yet in one statement (PartsFromGraph.read_records), without what a write's rules
        read next of each."""
        wanted = list(dict.fromkeys(ids))
        for part, found in self._source.read_records(wanted).items():
            self._reader.give(part, found)
        return {i: rec for i in wanted if (rec := self.state.items.get(i)) is not None}

    def stale_reasons(self, item_id: str) -> list[str]:
        """Why the item must be re-confirmed as of `upto` (KnowledgeState.stale_reasons)."""
        return self.state.stale_reasons(item_id)

    def flag(self, flag_id: str) -> FlagRecord | None:
        """The flag's record with every item it covers, None for one not raised by `upto`."""
        return self.state.flags.get(flag_id)

    def disputes_on(self, key: str) -> tuple[DisputeEvent, ...]:
        """Every dispute about the items on this key, open or closed (withdrawn ones are gone), oldest first."""
        return tuple(self.state.dispute_events.get(key, ()))

    def snapshot(self, about: str | list[str] | None = None, relation: str | None = None,
                 scope: dict[str, Any] | None = None, kinds: list[str] | None = None) -> dict[str, Any]:
        """What a decision would be given as of `upto` (KnowledgeState.snapshot), reading the items on the
        subjects asked about; NeedMore for one about every subject, which reads every item."""
        if not self._positioned:
            self.state.position, self._positioned = knowledge_position(self._source.graph, self.upto), True
        return self.state.snapshot(about=about, relation=relation, scope=scope, kinds=kinds)
