"""The knowledge store as of a journal position, rebuilt from what the graph holds of its past. Pure.

The head's reads (find, flags, open disputes, stale reasons, snapshot, report, and the question
targets) are plain functions over a `KnowledgeState`. `knowledge_at` turns the graph's history up
to position N into a `KnowledgeState` holding the records those functions read, as the journal up
to N left them, so a read as of N runs the same code as the read now (no second implementation of
the rules, and no entry is applied: every verdict is the one the graph recorded then).

Where each part comes from:

- an item's properties (status, support, why, promoted, uses, ...): its Item node's state at N
  (the changes on its WROTE edges, folded);
- its assertions, each with its source, premises and re-confirmation period, and the position a
  retraction or rollback took them back at: the `item.add` / `item.retract` / `item.rollback`
  entries (and the adds an answer carries) that wrote the node, read from their Entry's payload;
  the graph's Item node keeps only the assertion it shows;
- flags: Flag node states at N, and what each covered then from its COVERS edges' `since_seq`;
- disputes: Dispute node states at N (a withdrawn one is gone, as in the state);
- snapshots: Snapshot node states at N, with the ids of their facts and hints only;
- the store clock, and the clock each assertion was made at: the `clock.tick` entries up to N
  (a tick changes no node, so only its entry holds it); refusals: the `item.refused` entries;
- the knowledge position (the last knowledge entry at or before N): given by the caller.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from graph_service.history import HistoryMissing
from graph_service.journal.chain import canonical_json
from graph_service.knowledge import ops
from graph_service.knowledge.items import BEHAVIOUR_KINDS, content_id, value_of
from graph_service.knowledge.records import FlagRecord, ItemRecord
from graph_service.knowledge.rules import DisputeEvent, ItemVerdict, LiveAssertion, Resolution
from graph_service.knowledge.state import KnowledgeState
from graph_service.questions.state import ANSWER_QUESTION as ANSWER_OP

# The entries whose payload says what an item's assertions are, read with the item's history (an
# answer's payload carries knowledge sub-operations, an add among them).
ASSERTION_OPS: tuple[str, ...] = (ops.ADD, ops.RETRACT, ops.ROLLBACK, ANSWER_OP)
# The entries whose payload holds a person's answer to a dispute (a resolution), read with the disputes'
# histories: every resolution closed a dispute when it was written, so it wrote that Dispute node.
RESOLUTION_OPS: tuple[str, ...] = (ops.RESOLVE, ANSWER_OP)
_TAKE_BACK_OPS = frozenset({ops.RETRACT, ops.ROLLBACK})


@dataclass(frozen=True, slots=True)
class KnowledgeHistory:
    """What the graph holds of the knowledge store's past up to position `upto`, as read.

    Each history row has `id`, `seq`, `op`, `by`, `at` and `changes` (a WROTE edge's, as in
    graph_service.history); item rows also `payload` (the entry's, as JSON text) for the
    ASSERTION_OPS. `covers`: `flag`, `item`, `since_seq` per COVERS edge; `ticks` and `refusals`:
    `seq`, `by`, `payload` per entry of that op up to `upto`. Dispute rows also have `payload` for the
    RESOLUTION_OPS (the resolutions). A part left empty reads as nothing there (the caller reads only
    what its answer needs). Rows past `upto` are ignored.
    """

    upto: int
    items: Sequence[Mapping[str, Any]] = ()
    flags: Sequence[Mapping[str, Any]] = ()
    covers: Sequence[Mapping[str, Any]] = ()
    disputes: Sequence[Mapping[str, Any]] = ()
    snapshots: Sequence[Mapping[str, Any]] = ()
    ticks: Sequence[Mapping[str, Any]] = ()
    refusals: Sequence[Mapping[str, Any]] = ()
    position: int = 0


def flag_of_props(props: Mapping[str, Any], covers: set[str]) -> FlagRecord:
    """The flag a Flag node's properties (FlagRecord.props) describe, covering `covers`."""
    scope = props.get("scope")
    return FlagRecord(props["id"], props["raised_at"], props["kind"], props["why"], covers,
                      pending=bool(props["pending"]), ended_at=props.get("ended_at"),
                      scope=None if scope is None else json.loads(scope), key=props.get("key"))


def dispute_of_props(props: Mapping[str, Any]) -> DisputeEvent | None:
    """The dispute a Dispute node's properties (records.dispute_props) describe; None for one a retraction
    withdrew (the store holds it no more)."""
    if props.get("withdrawn"):
        return None
    return DisputeEvent(props["key"], props["opened_at"], props.get("closed_at"),
                        tuple(props.get("values_json") or ()), tuple(props.get("items") or ()),
                        props.get("resolved"))


def knowledge_at(history: KnowledgeHistory) -> KnowledgeState:
    """The knowledge state as the journal up to `history.upto` left it, for reading only.

    Holds what the head's reads and the question targets read: `items` (each ItemRecord with its
    node properties as `props`, its assertions with their retraction positions, the flags covering
    it, and its verdict: status, support, the assertion shown, reasons, stale, expiry), `by_key`,
    `by_subject`, `by_scope`, `dependents_of`, `superseded_by`, `flags`, `dispute_events`,
    `open_disputes`, `snapshots` (id, query, fingerprint, position, and facts and hints as
    `{"id": ...}` rows only), `refusals`, `clock`, `position` and the fingerprint; so `find`,
    `stale_reasons`, `disputes`, `snapshot`, `report`, `premise_closure`, `dependents`, `upstream`
    and TargetView answer as on a replay up to that position; and the `resolutions` on the keys of the
    disputes read. Not kept: the incremental evaluation's order, so the state evaluates whole
    components (`incremental` is off); applied an entry, it gives what a replay's state gives as long as
    it holds every item the entry's rules read (see graph_service.knowledge.region). HistoryMissing
    where a node or edge it reads was written before history was kept.
    """
    upto = history.upto
    state = KnowledgeState(incremental=False)
    state.clock, clock_before = _clock(history)
    state.flags, covering = _flags_at(history)
    for rec, props in _items_at(history, state.flags, covering, clock_before):
        _index(state, rec)
        state._fingerprint.replace(None, props)  # the running fingerprint, as the state keeps it

    for props in sorted(_states_at(history.disputes, upto).values(), key=lambda p: p["opened_at"]):
        event = dispute_of_props(props)
        if event is None:
            continue
        state.dispute_events[event.key] = (*state.dispute_events.get(event.key, ()), event)
        state.dispute_keys[props["id"]] = event.key
        if event.open:
            state.open_disputes[props["id"]] = event
    state.resolutions = _resolutions(history.disputes, upto)

    for snap_id, props in sorted(_states_at(history.snapshots, upto).items(),
                                 key=lambda kv: kv[1]["at"]):
        state.snapshots[snap_id] = {
            "id": snap_id, "query": json.loads(props["query"]), "fingerprint": props["fingerprint"],
            "position": props["position"], "facts": [{"id": i} for i in props.get("facts") or ()],
            "hints": [{"id": i} for i in props.get("hints") or ()],
        }

    for row in sorted(history.refusals, key=lambda r: r["seq"]):
        if row["seq"] <= upto:
            p = _payload(row)
            state.refusals.append({"seq": row["seq"], "id": p.get("id"), "kind": p.get("kind"),
                                   "source": p.get("source"), "by": p.get("by") or row["by"], "why": p.get("why")})
    state.position = history.position
    return state


def items_at(history: KnowledgeHistory) -> dict[str, ItemRecord]:
    """The item records `knowledge_at` gives for `history`, by id, without building the rest of a state (a
    write's reader builds an item at a time): the same records, verdicts and flags covering each."""
    flags, covering = _flags_at(history)
    return {rec.id: rec for rec, _ in _items_at(history, flags, covering, _clock(history)[1])}


def flags_at(history: KnowledgeHistory) -> dict[str, FlagRecord]:
    """The flag records `knowledge_at` gives for `history`, by id in the order raised, without a state."""
    return _flags_at(history)[0]


def _clock(history: KnowledgeHistory) -> tuple[int, Callable[[int], int]]:
    """The store clock as of `history.upto` (every tick up to it), and the clock before each position."""
    ticks = sorted((int(r["seq"]), int(_payload(r).get("k", 0))) for r in history.ticks if r["seq"] <= history.upto)
    tick_seqs = [seq for seq, _ in ticks]
    clocks = list(accumulate(k for _, k in ticks))

    def clock_before(seq: int) -> int:
        # The clock an assertion at `seq` was made at: every tick before it.
        n = bisect.bisect_left(tick_seqs, seq)
        return clocks[n - 1] if n else 0

    return (clocks[-1] if clocks else 0), clock_before


def _flags_at(history: KnowledgeHistory) -> tuple[dict[str, FlagRecord], dict[str, set[str]]]:
    """The flags as of `history.upto` in the order raised, each with the items it covered then, and the flags
    covering each item."""
    upto = history.upto
    flag_states = _states_at(history.flags, upto)
    flags = {flag_id: flag_of_props(props, set()) for flag_id, props in flag_states.items()}
    covering: dict[str, set[str]] = {}
    for row in history.covers:
        if row["since_seq"] is None:
            raise HistoryMissing(upto)
        if row["since_seq"] <= upto and row["flag"] in flags:
            flags[row["flag"]].covers.add(row["item"])
            covering.setdefault(row["item"], set()).add(row["flag"])
    # Flags in the order raised, as the state's dict holds them (flags() pages in that order).
    flags = dict(sorted(flags.items(), key=lambda kv: kv[1].seq))
    for flag_id, props in flag_states.items():
        flag = flags[flag_id]
        flag.covered_elsewhere = int(props.get("covers") or 0) - len(flag.covers)
    return flags, covering


def _items_at(history: KnowledgeHistory, flags: Mapping[str, FlagRecord], covering: Mapping[str, set[str]],
              clock_before: Callable[[int], int]) -> Iterator[tuple[ItemRecord, dict[str, Any]]]:
    """Each item's record as of `history.upto`, by id, with its node's properties then."""
    upto = history.upto
    by_item: dict[str, list[Mapping[str, Any]]] = {}
    for row in history.items:
        by_item.setdefault(row["id"], []).append(row)
    for item_id, props in sorted(_states_at(history.items, upto).items()):
        rec = _item_record(item_id, props, by_item[item_id], upto, clock_before)
        rec.flags = covering.get(item_id, set())
        rec.verdict = _verdict(rec, props, flags)
        # The node drops a property set to null; the record, rebuilt whole, gives it as a replay's state holds
        # it (with its nulls), so a write applied on this state re-projects only what it changes.
        materialised = rec.materialise()
        if {k: v for k, v in materialised.items() if v is not None} == rec.props:
            rec.props = materialised
        yield rec, props


def _resolutions(rows: Iterable[Mapping[str, Any]], upto: int) -> dict[str, list[Resolution]]:
    """The resolutions, by key in journal order, that the entries up to `upto` among these dispute history
    rows made (each entry once, though it may have written several disputes)."""
    found: dict[str, list[Resolution]] = {}
    seen: set[int] = set()
    for row in sorted(rows, key=lambda r: r["seq"]):
        if row["seq"] > upto or row.get("payload") is None or row["seq"] in seen:
            continue
        seen.add(row["seq"])
        for op, p in knowledge_ops(row["op"], _payload(row)):
            if op == ops.RESOLVE:
                found.setdefault(p.get("key", ""), []).append(Resolution(row["seq"], p.get("value", "")))
    return found


def knowledge_ops(op: str, payload: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The knowledge operations one entry applies, (op, payload) each: itself, or an answer's sub-operations."""
    if op == ANSWER_OP:
        return [(sub["op"], sub["payload"]) for sub in payload.get("knowledge") or ()]
    return [(op, dict(payload))] if op in ops.KNOWLEDGE_OPS else []


def _payload(row: Mapping[str, Any]) -> dict[str, Any]:
    raw = row.get("payload")
    return json.loads(raw) if isinstance(raw, str) else dict(raw or {})


def _states_at(rows: Iterable[Mapping[str, Any]], upto: int) -> dict[str, dict[str, Any]]:
    """Each node's properties as of `upto` (without its caption), by id; nodes not yet written are left out.

    The fold of graph_service.history.node_states, keeping only its last state (a read as of N wants no
    other, and copying every state was most of this function's time on a store's whole item history).
    """
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        if row["seq"] <= upto:
            grouped.setdefault(row["id"], []).append(row)
    found = {}
    for node_id, node_rows in grouped.items():
        current: dict[str, Any] = {}
        for row in sorted(node_rows, key=lambda r: r["seq"]):
            if row["changes"] is None:
                raise HistoryMissing(upto)  # written before history was kept: what it held then is unknown
            current.update(json.loads(row["changes"]))
        # A property set to null is removed; set again later, it is back: as node_states folds them.
        found[node_id] = {k: v for k, v in current.items() if v is not None and k != "name"}
    return found


def _item_record(item_id: str, props: Mapping[str, Any], rows: Iterable[Mapping[str, Any]], upto: int,
                 clock_before: Any) -> ItemRecord:
    """The item's record from its node's properties and the entries that wrote it (its assertions)."""
    body, scope = json.loads(props["body"]), json.loads(props["scope"])
    rec = ItemRecord(item_id, props["kind"], body, scope, props.get("key"), value_of(body),
                     learned_at=props["learned_at"], promoted=bool(props.get("promoted")),
                     held_why=props.get("held_why"), retired_at=props.get("retired_at"),
                     uses=props.get("uses") or 0, wrong_uses=props.get("wrong_uses") or 0, props=dict(props))
    for row in sorted(rows, key=lambda r: r["seq"]):
        if row["seq"] > upto or row.get("payload") is None:
            continue
        for op, p in knowledge_ops(row["op"], _payload(row)):
            if op == ops.ADD and content_id(p["kind"], p["body"], p.get("scope") or {}) == item_id:
                valid = p.get("valid")
                rec.add_assertion(LiveAssertion(
                    seq=row["seq"], source=p["source"], by=p.get("by") or row["by"],
                    premises=tuple(p.get("derived_from") or ()), supersedes=p.get("supersedes"),
                    clock_at=_clock_at(row, clock_before), reconfirm_after=p.get("reconfirm_after"),
                    valid=None if valid is None else (valid[0], valid[1])))
            elif op in _TAKE_BACK_OPS and p.get("id") == item_id:
                rec.take_back(row["seq"])
    return rec


def _clock_at(row: Mapping[str, Any], clock_before: Any) -> int:
    """The store clock an assertion was made at: the clock stored with its entry (which is no tick, so the
    clock after it is the clock before it), or for an entry stored before the clock was kept, the ticks'."""
    stored = row.get("clock")
    return int(stored) if stored is not None else clock_before(row["seq"])


def _verdict(rec: ItemRecord, props: Mapping[str, Any], flags: Mapping[str, FlagRecord]) -> ItemVerdict:
    """The verdict the node's properties record, with the assertion it shows (the best supported one)."""
    support = tuple(props.get("support") or ())
    supported = [a for a in rec.live() if a.seq in support]
    best = max(supported, key=lambda a: (a.rank, a.seq)) if supported else None
    # `why` is the reasons joined by "; "; a flag's or a gate's reason may hold "; " itself.
    whole = [f"flag {f.id} pending: {f.why}" for f in (flags[i] for i in sorted(rec.flags) if i in flags)]
    if rec.kind in BEHAVIOUR_KINDS and not rec.promoted:
        whole.append(f"not promoted: {rec.held_why or 'held by a gate'}")
    return ItemVerdict(props["status"], support, best, split_reasons(props.get("why") or "", whole),
                       bool(props.get("stale")), props.get("expires_at"))


def split_reasons(why: str, whole: Iterable[str] = ()) -> tuple[str, ...]:
    """The reasons an item's `why` joins with "; ", keeping each of `whole` (reasons that may hold
    "; " themselves) as one where it stands."""
    if not why:
        return ()
    candidates = sorted(set(whole), key=len, reverse=True)
    found: list[str] = []
    at = 0
    while at <= len(why):
        for reason in candidates:
            end = at + len(reason)
            if why.startswith(reason, at) and (end == len(why) or why.startswith("; ", end)):
                break
        else:
            end = why.find("; ", at)
            end = len(why) if end < 0 else end
        found.append(why[at:end])
        at = end + 2
    return tuple(found)


def _index(state: KnowledgeState, rec: ItemRecord) -> None:
    """Enter the record and the indexes the state's reads use, as `KnowledgeState._record_for` and
    `_add` keep them (premise and supersede links of every assertion, retracted ones too)."""
    state.items[rec.id] = rec
    if rec.key is not None:
        state.by_key.setdefault(rec.key, set()).add(rec.id)
    if isinstance(rec.body.get("s"), str):
        state.by_subject.setdefault(rec.body["s"], set()).add(rec.id)
    for name, value in rec.scope.items():
        state.by_scope.setdefault((name, canonical_json(value)), set()).add(rec.id)
    for asserted in rec.assertions:
        for premise in asserted.assertion.premises:
            state.dependents_of.setdefault(premise, set()).add(rec.id)
        if asserted.assertion.supersedes:
            state.superseded_by.setdefault(asserted.assertion.supersedes, set()).add(rec.id)
