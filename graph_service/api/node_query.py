"""`node(id)`: any node by the id it already has, its kind read off the id's shape.

The ids the service mints are disjoint by shape, so no second table is needed:

| id                        | kind          |
|---------------------------|---------------|
| `entry-<seq>`             | JournalEntry  |
| `k-<hash>`                | Item          |
| `b<seq>.<n>`              | Belief        |
| `e<seq>.<n>`              | Evidence      |
| `obs-<seq>-<slot>`        | Observation   |
| `asr-<seq>-<index>`       | Assertion (of the message `obs-<seq>-0`) |
| `<target>#q<n>`           | Question      |
| `flag-<seq>`              | Flag          |
| `d-<hash>-<seq>`          | Dispute       |
| anything else             | Unknown (declared ids are the client's choice, so they are the fallback; an
                              unknown whose id has one of the shapes above is also found when the kind
                              the shape names has no such node) |
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

import strawberry

from graph_service.api.belief_types import Evidence, read_belief
from graph_service.api.context import caught_up
from graph_service.api.errors import user_errors
from graph_service.api.journal_types import JournalEntry
from graph_service.api.knowledge_types import find_dispute, find_flag, find_item
from graph_service.api.node import Node
from graph_service.api.question_types import Question, Unknown
from graph_service.api.read_pages import question_now, unknown_now
from graph_service.api.statement_types import Observation, assertions_of, observation_props
from graph_service.errors import NotFound
from graph_service.service import Service
from graph_service.statements import message_observation_id

ENTRY = re.compile(r"entry-(?P<seq>[1-9][0-9]*)")
BELIEF = re.compile(r"b[0-9]+\.[0-9]+")
EVIDENCE = re.compile(r"e[0-9]+\.[0-9]+")
OBSERVATION = re.compile(r"obs-[0-9]+-[0-9]+")
ASSERTION = re.compile(r"asr-(?P<seq>[0-9]+)-[0-9]+")
QUESTION = re.compile(r".+#q[0-9]+")
FLAG = re.compile(r"flag-[1-9][0-9]*")
DISPUTE = re.compile(r"d-[0-9a-f]{12}-[0-9]+")


def _entry(service: Service, node_id: str) -> Node | None:
    seq = int(ENTRY.fullmatch(node_id)["seq"])  # type: ignore[index]
    found = list(service.journal.entries_after(seq - 1, 1))
    return JournalEntry.of(found[0]) if found and found[0].seq == seq else None


def _belief(service: Service, node_id: str) -> Node | None:
    try:
        return read_belief(service, node_id)
    except NotFound:
        return None


def _evidence(service: Service, node_id: str) -> Node | None:
    rows = service.graph.run("evidence_by_id", {"id": node_id})
    return Evidence.of(rows[0]["evidence"], rows[0]["roots"], rows[0]["assertions"]) if rows else None


def _observation(service: Service, node_id: str) -> Node | None:
    try:
        return Observation.of(observation_props(service, node_id))
    except NotFound:
        return None


def _assertion(service: Service, node_id: str) -> Node | None:
    seq = int(ASSERTION.fullmatch(node_id)["seq"])  # type: ignore[index]
    return next((a for a in assertions_of(service, message_observation_id(seq)) if a.id == node_id), None)


def _question(service: Service, node_id: str) -> Node | None:
    record = question_now(service.graph, node_id)
    return None if record is None else Question.of(record)


def _unknown(service: Service, node_id: str) -> Node | None:
    record = unknown_now(service.graph, node_id)
    return None if record is None else Unknown.of(record)


SHAPES: list[tuple[Callable[[str], Any], Callable[[Service, str], Node | None]]] = [
    (ENTRY.fullmatch, _entry),
    (lambda i: i.startswith("k-"), find_item),
    (BELIEF.fullmatch, _belief),
    (EVIDENCE.fullmatch, _evidence),
    (OBSERVATION.fullmatch, _observation),
    (ASSERTION.fullmatch, _assertion),
    (QUESTION.fullmatch, _question),
    (FLAG.fullmatch, find_flag),
    (DISPUTE.fullmatch, find_dispute),
]


def find_node(service: Service, node_id: str) -> Node | None:
    """The node with this id: the kind its shape names, else a declared unknown; None if neither."""
    for shaped, lookup in SHAPES:
        if shaped(node_id):
            found = lookup(service, node_id)
            if found is not None:
                return found
            break
    return _unknown(service, node_id)


@strawberry.type
class NodeQuery:
    @strawberry.field(description="Any node by its id: a journal entry, item, belief, evidence row, observation, "
                                  "assertion, question, flag, dispute or unknown (its id's shape tells the kind). "
                                  "Missing: null, with a NOT_FOUND error naming it.")
    @user_errors
    def node(self, info: strawberry.Info[Any, Any],
             id: Annotated[strawberry.ID, strawberry.argument(description="The node's id, as its `id` field gives "
                                                                          "it.")]) -> Node | None:
        found = find_node(caught_up(info), str(id))
        if found is None:
            raise NotFound(f"id: no node {str(id)!r}", field="id")
        return found

