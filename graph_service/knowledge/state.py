"""The knowledge store's state: a pure state machine over journal entries (the Domain protocol).

`apply(entry)` updates the records and the indexes, re-evaluates what the entry's change can reach
(incremental.py: the units it touches and, in dependency order, those reading a status or support
that changed) with the pure state rules, and returns what the graph must change. A write costs the
items whose verdicts it re-decides, not its component — except downstream of a cycle through keys
or supersedes, where the whole component is evaluated as the definition (`evaluate`) orders it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from graph_service.domain import Applied
from graph_service.journal.chain import Entry, canonical_json
from graph_service.journal.clock import clock_after
from graph_service.knowledge import ops, queries
from graph_service.knowledge.expiry import ExpiryQueue
from graph_service.knowledge.fingerprint import RunningFingerprint
from graph_service.knowledge.gates import DEFAULT_GATES, Gate
from graph_service.knowledge.impact import Impact, impact
from graph_service.knowledge.incremental import propagate, reference_evaluation
from graph_service.knowledge.items import content_id, key_of, value_of
from graph_service.knowledge.records import (
    FLAG_KINDS,
    FlagRecord,
    ItemRecord,
    dispute_id,
    dispute_props,
)
from graph_service.knowledge.rules import DisputeEvent, LiveAssertion, Resolution, stale_reasons
from graph_service.knowledge.schedule import Order
from graph_service.knowledge.snapshot import take_snapshot
from graph_service.knowledge.units import unit_of
from graph_service.knowledge.walks import component
from graph_service.partial_reads import read_ahead
from graph_service.projection import NodeUpsert, Projection

StatusChanges = dict[str, tuple[str, str]]


def scope_id(name: str, value: Any) -> str:
    """The id of the Scope node of one scope entry: items in it have an IN_SCOPE edge to it."""
    return f"{name}={canonical_json(value)}"


class KnowledgeState:
    """Items, flags, disputes and the store clock, as the journal applied so far gives them."""

    def __init__(
        self,
        gates: Iterable[Gate] = DEFAULT_GATES,
        reconfirm_defaults: Mapping[tuple[str, str], int | None] | None = None,
        *,
        incremental: bool = True,
    ) -> None:
        # incremental=False evaluates every write's whole component: the reference the tests compare to.
        self.incremental = incremental
        self.order = Order()
        self.gates: tuple[Gate, ...] = tuple(gates)
        self.reconfirm_defaults = reconfirm_defaults
        self.items: dict[str, ItemRecord] = {}
        self.by_key: dict[str, set[str]] = {}
        self.by_subject: dict[str, set[str]] = {}
        self.by_scope: dict[tuple[str, str], set[str]] = {}
        self.dependents_of: dict[str, set[str]] = {}
        self.superseded_by: dict[str, set[str]] = {}
        self.resolutions: dict[str, list[Resolution]] = {}
        self.dispute_events: dict[str, tuple[DisputeEvent, ...]] = {}
        self.open_disputes: dict[str, DisputeEvent] = {}
        # Each dispute event's key by its id (records.dispute_id), so one named by its id is a lookup.
        self.dispute_keys: dict[str, str] = {}
        self.flags: dict[str, FlagRecord] = {}
        self.snapshots: dict[str, dict[str, Any]] = {}
        self.refusals: list[dict[str, Any]] = []
        self.clock = 0
        self.position = 0
        self.expiry = ExpiryQueue()
        # The units whose done time (order.time) the last entry applied changed, with the new one (None:
        # no longer scheduled): what the graph keeps of the order, so a write without the store reads it.
        self.scheduled: dict[str, int | None] = {}
        self._fingerprint = RunningFingerprint()
        self._handlers: dict[str, Callable[[Entry], Applied]] = {
            ops.ADD: self._add,
            ops.REFUSED: self._refused,
            ops.PROMOTE: self._promote,
            ops.RETRACT: self._retract,
            ops.ROLLBACK: self._rollback,
            ops.RETIRE: self._retire,
            ops.RECONFIRM: self._reconfirm,
            ops.USED: self._used,
            ops.FLAG: self._flag,
            ops.END_FLAG: self._end_flag,
            ops.RESOLVE: self._resolve,
            ops.TICK: self._tick,
            ops.SNAPSHOT: self._snapshot,
        }

    # -- the Domain protocol -------------------------------------------------------------------

    def handles(self, op: str) -> bool:
        """True for the knowledge store's operations (ops.KNOWLEDGE_OPS)."""
        return op in self._handlers

    def apply(self, entry: Entry) -> Applied:
        """Apply one committed entry. Total: an entry naming something unknown changes nothing."""
        self.position = max(self.position, entry.seq)
        self.scheduled = {}
        self.expiry.changes = {}
        return self._handlers[entry.op](entry)

    def advance(self, seq: int) -> None:
        """Count an entry as read without applying it (a replay leaving it out)."""
        self.position = max(self.position, seq)

    # -- reads the rules and the planner share ---------------------------------------------------

    def fingerprint(self) -> str:
        """A hash of every present item's status, rank, support and time range (see fingerprint.py)."""
        return self._fingerprint.value()

    def fingerprint_sum(self) -> tuple[int, int]:
        """The running fingerprint's digest sum and count (what the graph keeps on its Fingerprint node)."""
        return self._fingerprint.total, self._fingerprint.count

    def dispute_event(self, dispute_id_: str) -> DisputeEvent | None:
        """The dispute event with this id (records.dispute_id), open or closed; None for none (or one withdrawn)."""
        key = self.dispute_keys.get(dispute_id_)
        if key is None:
            return None
        return next((e for e in self.dispute_events.get(key, ()) if dispute_id(e) == dispute_id_), None)

    def status(self, item_id: str) -> str | None:
        """The item's status, None for an id never written."""
        rec = self.items.get(item_id)
        return None if rec is None else rec.status

    def rows(self) -> list[dict[str, Any]]:
        """The Item node properties of every item, by id."""
        return [dict(rec.props or {}) for _, rec in sorted(self.items.items())]

    def stale_reasons(self, item_id: str) -> list[str]:
        """Why the item must be re-confirmed: its pending flags and the clock, never its status."""
        rec = self.items.get(item_id)
        return [] if rec is None else stale_reasons(rec.facts(self.flags), self.clock)

    def premise_closure(self, ids: Iterable[str]) -> list[str]:
        """The given ids and everything they rest on through live assertions, transitively, nearest first."""
        seen = list(dict.fromkeys(ids))
        known = set(seen)
        level = seen
        while level:
            read_ahead(self.items, level)  # a level at a time: from the graph, one round trip a level, not an item
            found = []
            for item_id in level:
                rec = self.items.get(item_id)
                for p in rec.premises() if rec else ():
                    if p not in known:
                        known.add(p)
                        found.append(p)
            seen.extend(found)
            level = found
        return seen

    def key_value(self, item_id: str) -> tuple[str | None, str | None]:
        rec = self.items.get(item_id)
        return (None, None) if rec is None else (rec.key, rec.value)

    def values_on(self, key: str) -> set[str]:
        """The values stored items (live or not) hold on this key."""
        return {self.items[i].value for i in self.by_key.get(key, ())}

    def neighbours(self, item_id: str) -> list[str]:
        """Items whose state this one's can depend on or affect: premises both ways, key, supersedes."""
        rec = self.items.get(item_id)
        found: list[str] = list(self.dependents_of.get(item_id, ()))
        found += self.superseded_by.get(item_id, ())
        if rec is not None:
            found += rec.premises(live_only=False)
            found += [a.assertion.supersedes for a in rec.assertions if a.assertion.supersedes]
            if rec.key is not None:
                found += self.by_key[rec.key]
        return found

    def component_of(self, ids: Iterable[str]) -> set[str]:
        return component(ids, self.neighbours)

    # -- re-evaluation ---------------------------------------------------------------------------

    def _recompute(
        self, touched: Iterable[str], projection: Projection, structural: Iterable[str] = ()
    ) -> StatusChanges:
        """Re-evaluate what `touched` can affect; project what changed; return status changes.

        The same verdicts, projections and dispute events as evaluating the whole components of
        `touched` (`reference_evaluation`), which is what runs where incremental evaluation cannot
        be trusted to equal it (a unit never scheduled). `structural`: the items the write added
        assertions to or took them back from (edges and liveness may have changed around them).
        """
        ids = [i for i in touched if i in self.items]
        outcome = None
        if self.incremental:
            outcome = propagate(self, self.order, {unit_of(self.items[i]) for i in ids}, structural)
        if outcome is None:
            verdicts, disputes, members = reference_evaluation(self, ids)
            if self.incremental:
                units = {unit_of(self.items[i]) for i in members}
                was = {u: self.order.time.get(u) for u in units}
                self.order.whole_evaluations += 1
                self.order.reset(self, members)
                self._note_schedule(was)
        else:
            verdicts, disputes = outcome.verdicts, outcome.disputes
            self.order.units_evaluated += outcome.units
            was = {u: self.order.time.get(u) for u in (*outcome.schedule.time, *outcome.schedule.gone)}
            self.order.commit(outcome.schedule)
            self._note_schedule(was)
        changes: StatusChanges = {}
        # An item's properties are its record's and its verdict's: one re-decided to the verdict it
        # had, its record not touched by this write (every handler touches what it changes), reads
        # as it did, and re-materialising it (most of what a write re-decides) would change nothing.
        own = set(ids)
        for item_id in sorted(verdicts):
            rec = self.items[item_id]
            before = rec.status if rec.props is not None else None
            unchanged = rec.props is not None and item_id not in own and rec.verdict == verdicts[item_id]
            rec.verdict = verdicts[item_id]
            if before is not None and before != rec.status:
                changes[item_id] = (before, rec.status)
            expires = rec.verdict.expires_at
            if expires is not None and expires > self.clock:
                self.expiry.push(item_id, expires)
            if not unchanged:
                self._materialise(rec, projection)
        for key in sorted(disputes):
            self._project_disputes(key, disputes[key], projection)
        return changes

    def _note_schedule(self, was: Mapping[str, int | None]) -> None:
        for unit, before in was.items():
            now = self.order.time.get(unit)
            if now != before:
                self.scheduled[unit] = now

    def _materialise(self, rec: ItemRecord, projection: Projection) -> None:
        props = rec.materialise()
        if props != rec.props:
            self._fingerprint.replace(rec.props, props)
            rec.props = props
            projection.nodes.append(NodeUpsert("Item", rec.id, props))

    def _project_disputes(self, key: str, events: tuple[DisputeEvent, ...], projection: Projection) -> None:
        old = {e.opened_at: e for e in self.dispute_events.get(key, ())}
        new = {e.opened_at: e for e in events}
        for opened, event in old.items():
            if opened not in new:
                self.open_disputes.pop(dispute_id(event), None)
                projection.nodes.append(
                    NodeUpsert("Dispute", dispute_id(event), dispute_props(event, withdrawn=True))
                )
        for opened, event in new.items():
            did = dispute_id(event)
            self.dispute_keys[did] = key
            if event.open:
                self.open_disputes[did] = event
            else:
                self.open_disputes.pop(did, None)
            if old.get(opened) != event:
                projection.nodes.append(NodeUpsert("Dispute", did, dispute_props(event)))
                for item_id in event.items:
                    projection.edge("ABOUT", "Dispute", did, "Item", item_id)
        if events:
            self.dispute_events[key] = events
        else:
            self.dispute_events.pop(key, None)

    # -- handlers --------------------------------------------------------------------------------

    def _record_for(self, p: dict[str, Any], seq: int) -> ItemRecord:
        kind, body, scope = p["kind"], p["body"], p.get("scope") or {}
        item_id = content_id(kind, body, scope)
        rec = self.items.get(item_id)
        if rec is None:
            key = key_of(body, scope)
            rec = ItemRecord(item_id, kind, dict(body), dict(scope), key, value_of(body), learned_at=seq)
            self.items[item_id] = rec
            if key is not None:
                self.by_key.setdefault(key, set()).add(item_id)
            if isinstance(body.get("s"), str):
                self.by_subject.setdefault(body["s"], set()).add(item_id)
            for name, value in scope.items():
                self.by_scope.setdefault((name, canonical_json(value)), set()).add(item_id)
        return rec

    def _add(self, entry: Entry) -> Applied:
        p = entry.payload
        rec = self._record_for(p, entry.seq)
        learned = not rec.assertions  # a record is made by its first assertion
        premises = tuple(p.get("derived_from") or ())
        supersedes = p.get("supersedes")
        valid = p.get("valid")
        assertion = LiveAssertion(
            seq=entry.seq,
            source=p["source"],
            by=p.get("by") or entry.by,
            premises=premises,
            supersedes=supersedes,
            clock_at=self.clock,
            reconfirm_after=p.get("reconfirm_after"),
            valid=None if valid is None else (valid[0], valid[1]),
        )
        rec.add_assertion(assertion)
        admission = p.get("admission", "present")
        if admission in ("present", "promoted"):
            rec.promoted, rec.held_why = True, None
        elif not rec.promoted:
            rec.held_why = p.get("why")
        projection = Projection()
        if learned:  # the scope entries it is in, as the graph's index of items by scope (scope_id)
            for name, value in sorted(rec.scope.items()):
                projection.edge("IN_SCOPE", "Item", rec.id, "Scope", scope_id(name, value))
        for premise in premises:
            self.dependents_of.setdefault(premise, set()).add(rec.id)
            projection.edge("DERIVED_FROM", "Item", rec.id, "Item", premise)
        if supersedes:
            self.superseded_by.setdefault(supersedes, set()).add(rec.id)
            projection.edge("SUPERSEDES", "Item", rec.id, "Item", supersedes)
        changes = self._recompute([rec.id], projection, structural=[rec.id])
        result = {
            "id": rec.id,
            "status": rec.status,
            "admission": admission,
            "why": p.get("why"),
            "changes": changes,
        }
        return Applied(projection, result)

    def _refused(self, entry: Entry) -> Applied:
        p = entry.payload
        refusal = {
            "seq": entry.seq,
            "id": p.get("id"),
            "kind": p.get("kind"),
            "source": p.get("source"),
            "by": p.get("by") or entry.by,
            "why": p.get("why"),
        }
        self.refusals.append(refusal)
        return Applied(
            Projection(), {"id": None, "status": "refused", "admission": "refused", "why": p.get("why")}
        )

    def _item(self, entry: Entry) -> ItemRecord | None:
        return self.items.get(entry.payload.get("id", ""))

    def _promote(self, entry: Entry) -> Applied:
        projection, rec = Projection(), self._item(entry)
        if rec is None:
            return Applied(projection, {})
        rec.promoted, rec.held_why = True, None
        return Applied(projection, self._recompute([rec.id], projection))

    def _retract(self, entry: Entry) -> Applied:
        projection, rec = Projection(), self._item(entry)
        if rec is None:
            return Applied(projection, {})
        rec.take_back(entry.seq)
        return Applied(projection, self._recompute([rec.id], projection, structural=[rec.id]))

    def _rollback(self, entry: Entry) -> Applied:
        projection, rec = Projection(), self._item(entry)
        if rec is None:
            return Applied(projection, {})
        restored = {a.supersedes for a in rec.live() if a.supersedes}
        if rec.key is not None:
            restored |= self.by_key[rec.key] - {rec.id}
        restored = {i for i in restored if i in self.items}  # asked one by one: a region answers for what it holds
        # A stale version is never restored as a fact: flags pending on the rolled-back item cover it too.
        for flag_id in sorted(rec.flags):
            flag = self.flags.get(flag_id)
            if flag is None or not flag.pending:
                continue
            for other in sorted(restored - flag.covers):
                flag.covers.add(other)
                self.items[other].flags.add(flag_id)
                projection.edge("COVERS", "Flag", flag_id, "Item", other)
            projection.nodes.append(NodeUpsert("Flag", flag_id, flag.props()))
        rec.take_back(entry.seq)
        return Applied(projection, self._recompute([rec.id, *sorted(restored)], projection, structural=[rec.id]))

    def _retire(self, entry: Entry) -> Applied:
        projection, rec = Projection(), self._item(entry)
        if rec is None:
            return Applied(projection, {})
        rec.retired_at = entry.seq
        return Applied(projection, self._recompute([rec.id], projection))

    def _raise(self, entry: Entry, kind: str, covers: set[str], **where: Any) -> Applied:
        assert kind in FLAG_KINDS, kind
        projection = Projection()
        flag = FlagRecord(
            f"flag-{entry.seq}", entry.seq, kind, entry.payload.get("why") or kind, covers, **where
        )
        self.flags[flag.id] = flag
        projection.nodes.append(NodeUpsert("Flag", flag.id, flag.props()))
        for item_id in sorted(covers):
            self.items[item_id].flags.add(flag.id)
            projection.edge("COVERS", "Flag", flag.id, "Item", item_id)
        self._recompute(sorted(covers), projection)
        return Applied(projection, flag.id)

    def _reconfirm(self, entry: Entry) -> Applied:
        rec = self._item(entry)
        return self._raise(entry, "reconfirm", set() if rec is None else {rec.id})

    def matching_scope(self, pattern: Mapping[str, Any]) -> set[str]:
        """Items whose scope falls under `pattern` (every item for an empty pattern)."""
        if not pattern:
            return set(self.items)
        sets = [self.by_scope.get((name, canonical_json(value)), set()) for name, value in pattern.items()]
        smallest = min(sets, key=len)
        return {i for i in smallest if all(i in s for s in sets)}

    def _flag(self, entry: Entry) -> Applied:
        p = entry.payload
        if p.get("ids") is not None:
            return self._raise(entry, "ids", {i for i in p["ids"] if i in self.items})
        if p.get("key") is not None:
            return self._raise(entry, "key", set(self.by_key.get(p["key"], ())), key=p["key"])
        scope = dict(p.get("scope") or {})
        return self._raise(entry, "scope", self.matching_scope(scope), scope=scope)

    def _end_flag(self, entry: Entry) -> Applied:
        projection = Projection()
        flag = self.flags.get(entry.payload.get("flag", ""))
        if flag is None or not flag.pending:
            return Applied(projection, {})
        flag.pending, flag.ended_at = False, entry.seq
        projection.nodes.append(NodeUpsert("Flag", flag.id, flag.props()))
        return Applied(projection, self._recompute(sorted(flag.covers), projection))

    def _resolve(self, entry: Entry) -> Applied:
        projection, key = Projection(), entry.payload.get("key", "")
        self.resolutions.setdefault(key, []).append(Resolution(entry.seq, entry.payload.get("value", "")))
        return Applied(projection, self._recompute(sorted(self.by_key.get(key, ())), projection))

    def _tick(self, entry: Entry) -> Applied:
        projection = Projection()
        self.clock = clock_after(self.clock, entry.op, entry.payload)
        due = self.expiry.take_due(self.clock)
        changes = self._recompute(sorted(due), projection) if due else {}
        return Applied(projection, {"clock": self.clock, "changes": changes})

    def _used(self, entry: Entry) -> Applied:
        projection = Projection()
        wrong = bool(entry.payload.get("wrong", False))
        counted: dict[str, int] = {}
        for item_id in entry.payload.get("ids", []):
            rec = self.items.get(item_id)
            if rec is None:
                continue
            rec.uses += 1
            rec.wrong_uses += int(wrong)
            counted[item_id] = rec.uses
            self._materialise(rec, projection)
        return Applied(projection, counted)

    def _snapshot(self, entry: Entry) -> Applied:
        q = entry.payload
        snap = take_snapshot(
            self, about=q.get("about"), relation=q.get("relation"), scope=q.get("scope"), kinds=q.get("kinds")
        )
        snap["id"] = f"snap-{entry.seq}"
        self.snapshots[snap["id"]] = snap
        projection = Projection()
        projection.node(
            "Snapshot",
            snap["id"],
            at=entry.seq,
            query=canonical_json(snap["query"]),
            fingerprint=snap["fingerprint"],
            position=snap["position"],
            facts=[f["id"] for f in snap["facts"]],
            hints=[h["id"] for h in snap["hints"]],
        )
        for item_id in [f["id"] for f in snap["facts"]] + [h["id"] for h in snap["hints"]]:
            projection.edge("READ", "Snapshot", snap["id"], "Item", item_id)
        return Applied(projection, snap)

    # -- reads -----------------------------------------------------------------------------------

    def stale(self, item_id: str) -> bool:
        """Must this item be re-confirmed before it is answered on alone? Flags and clock, not status."""
        return bool(self.stale_reasons(item_id))

    def find(self, **filters: Any) -> list[dict[str, Any]]:
        """Item records matching every filter (queries.FIND_FILTERS)."""
        return queries.find(self, filters)

    def disputes(self) -> list[dict[str, Any]]:
        """The open disputes, one question each, oldest first."""
        return queries.open_disputes(self)

    def report(self) -> dict[str, Any]:
        """What was learned and from whom, what is refuted, retracted, expired, disputed, flagged, refused."""
        return queries.report(self)

    def snapshot(
        self,
        about: str | list[str] | None = None,
        relation: str | None = None,
        scope: dict[str, Any] | None = None,
        kinds: list[str] | None = None,
    ) -> dict[str, Any]:
        """What a decision would be given now (nothing recorded; plan_snapshot records one)."""
        return take_snapshot(self, about=about, relation=relation, scope=scope, kinds=kinds)

    def upstream(self, ids: Iterable[str]) -> dict[str, int]:
        """Items whose state can change that of `ids` (premises, same-key competitors), with depth."""
        return queries.upstream_of(self, list(ids))

    def dependents(self, ids: Iterable[str]) -> dict[str, int]:
        """Items resting on `ids` (derived from them), transitively, with depth; not everything
        their retraction would change (see `impact`)."""
        return queries.dependents_of(self, list(ids))

    def impact(self, ids: Iterable[str]) -> Impact:
        """What retracting `ids` would change (every status and support, every key's disputes),
        computed without writing anything: what a retraction of them then does."""
        return impact(self, ids)

    def component(self, ids: Iterable[str]) -> set[str]:
        """The connected component(s) of `ids`: premise edges both ways, shared keys, supersedes."""
        return {i for i in self.component_of(ids) if i in self.items}
