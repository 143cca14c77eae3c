"""The knowledge store as of a journal position, read from the graph's history for the API's as-of
reads (items, flags, disputes, stale, snapshot, report, openQuestions): which statements read which
part, and the rebuild they feed (graph_service.knowledge.as_of.knowledge_at, pure)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graph_service.errors import NotFound
from graph_service.history import check_position
from graph_service.knowledge import ops
from graph_service.knowledge.as_of import (
    ANSWER_OP,
    ASSERTION_OPS,
    RESOLUTION_OPS,
    KnowledgeHistory,
    knowledge_at,
    knowledge_ops,
)
from graph_service.knowledge.state import KnowledgeState
from graph_service.questions.as_of import question_state_at
from graph_service.questions.state import QuestionState
from graph_service.storage.port import GraphPort

if TYPE_CHECKING:  # the service's knowledge writes read through this module (knowledge_region)
    from graph_service.service import Service

# What `knowledge_as_of` can read: each part is one or two statements (see KnowledgeHistory).
ITEMS, FLAGS, CLOCK, DISPUTES, SNAPSHOTS, REFUSALS, POSITION = (
    "items", "flags", "clock", "disputes", "snapshots", "refusals", "position")
EVERY_PART = frozenset({ITEMS, FLAGS, CLOCK, DISPUTES, SNAPSHOTS, REFUSALS, POSITION})
# Entries read per statement while looking back for the last knowledge entry (POSITION).
_POSITION_WINDOW = 64


def knowledge_as_of(service: Service, as_of: int, parts: frozenset[str] = EVERY_PART,
                    ids: list[str] | None = None) -> KnowledgeState:
    """The knowledge state as the journal up to position `as_of` left it, read from the graph's history
    (never by replaying the journal); see graph_service.knowledge.as_of.knowledge_at for what it holds.

    `parts` says what to read (the rest is left empty): ITEMS (every item: its node's history and its
    assertions' entries), FLAGS (with what they covered), CLOCK (the store clock, and each assertion's:
    staleness needs it), DISPUTES, SNAPSHOTS, REFUSALS, POSITION (the last knowledge entry at or before
    `as_of`; found by reading back from it, so it costs the entries after that one). `ids`: only these
    items, only the flags covering them (each flag's `covers` then holds only these items, and counts the
    rest) and only the disputes about them.
    UserError unless `as_of` is 0 to the head; HistoryMissing where the store was written before
    history was kept. The graph must hold every entry up to `as_of` (the API's `caught_up`); each part
    is its own statement, consistent with the others because every one reads only what entries up to
    `as_of` wrote, which later writes never change.
    """
    check_position(as_of, service.journal.seq)
    return knowledge_from_history(service.graph, as_of, parts, ids)


def knowledge_from_history(graph: GraphPort, as_of: int, parts: frozenset[str] = EVERY_PART,
                           ids: list[str] | None = None) -> KnowledgeState:
    """`knowledge_as_of` for a position the caller has checked (0 to the head), from `graph` alone (so a
    process of its own can read it: graph_service.jobs.apart)."""
    upto = {"upto": as_of}
    payload_ops = {"payload_ops": list(ASSERTION_OPS)}
    items: list[dict[str, Any]] = []
    if ITEMS in parts:
        items = (graph.run("every_item_entries_upto", {**upto, **payload_ops}) if ids is None
                 else graph.run("items_entries_upto", {**upto, **payload_ops, "ids": ids}))
    flags: list[dict[str, Any]] = []
    covers: list[dict[str, Any]] = []
    if FLAGS in parts and ids is None:
        flags, covers = graph.run("flags_history_upto", upto), graph.run("flag_covers_upto", upto)
    elif FLAGS in parts:
        read = flags_and_covers(graph.run("item_flags_upto", {**upto, "ids": ids}))
        flags, covers = read["flags"], read["covers"]
    history = KnowledgeHistory(
        upto=as_of, items=items, flags=flags, covers=covers,
        disputes=disputes_history(graph, as_of, ids) if DISPUTES in parts else [],
        snapshots=graph.run("snapshots_history_upto", upto) if SNAPSHOTS in parts else [],
        ticks=graph.run("entries_of_op_upto", {**upto, "op": ops.TICK}) if CLOCK in parts else [],
        refusals=graph.run("entries_of_op_upto", {**upto, "op": ops.REFUSED}) if REFUSALS in parts else [],
        position=knowledge_position(graph, as_of) if POSITION in parts else 0,
    )
    return knowledge_at(history)


def flags_and_covers(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """item_flags_upto's rows as KnowledgeHistory's `flags` (one row per write) and `covers` (one per edge)."""
    flags = list({(r["id"], r["seq"]): r for r in rows}.values())
    covers = list({(r["id"], r["item"]): {"flag": r["id"], "item": r["item"], "since_seq": r["since_seq"]}
                   for r in rows}.values())
    return {"flags": flags, "covers": covers}


def disputes_history(graph: GraphPort, as_of: int, ids: list[str] | None) -> list[dict[str, Any]]:
    """The disputes' histories up to `as_of` (every dispute's, or those about `ids`), with their resolutions'
    payloads: KnowledgeHistory's `disputes`."""
    params = {"upto": as_of, "payload_ops": list(RESOLUTION_OPS)}
    if ids is None:
        return graph.run("disputes_history_upto", params)
    return graph.run("disputes_about_items_upto", {**params, "ids": ids})


def questions_from_history(graph: GraphPort, as_of: int) -> QuestionState:
    """The question side of the store at a checked position, from the graph's history (see
    graph_service.questions.as_of): what openQuestions(asOf) ranks beside `knowledge_from_history`."""
    history = graph.run("questions_history_upto", {"upto": as_of})
    affects = graph.run("unknown_affects_upto", {"upto": as_of})
    return question_state_at(history, affects, as_of)


def knowledge_position(graph: GraphPort, upto: int) -> int:
    """The last entry at or before `upto` that applied a knowledge operation (0: none): what the
    knowledge state's `position` is after the journal up to `upto`."""
    to, width = upto, _POSITION_WINDOW
    while to > 0:
        start = max(0, to - width)
        for row in graph.run("entry_ops_between", {"from": start, "to": to, "answer": ANSWER_OP}):
            payload = json.loads(row["payload"]) if row["payload"] else {}
            if knowledge_ops(row["op"], payload):
                return int(row["seq"])
        # Wider each time: a long run of other entries costs a few statements, not one per 64 of them.
        to, width = start, width * 4
    return 0


def stale_as_of(service: Service, item_id: str, as_of: int) -> list[str]:
    """Why the item needed re-confirmation at position `as_of` (its flags and the clock then), read for
    it alone; NotFound when it was not there then."""
    knowledge = knowledge_as_of(service, as_of, frozenset({ITEMS, FLAGS, CLOCK}), ids=[item_id])
    if item_id not in knowledge.items:
        raise NotFound(f"id: no item {item_id!r} at position {as_of}", field="id")
    return knowledge.stale_reasons(item_id)
