"""A node's history, from the changes each journal entry made to it (kept on its WROTE edges by the
projection statement, in the same atomic step as the change). Pure.

Why deltas on WROTE edges: the edge from an entry to a node it wrote already existed; storing there
what that entry set on the node keeps the history where Neo4j Browser shows it, costs nothing for
nodes nobody writes, and a node's history costs what that node's writes cost, never the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graph_service.errors import NotFound, UserError


@dataclass(frozen=True)
class NodeState:
    """A node as one journal entry left it: the entry (position, op, author, time), what it changed
    there, and the node's properties after it (None when an earlier write predates kept history)."""

    label: str
    seq: int
    op: str
    by: str
    at: int
    changes: dict[str, Any] | None
    state: dict[str, Any] | None


def node_states(rows: Iterable[dict[str, Any]]) -> list[NodeState]:
    """The `node_history` rows folded into the node's states, oldest first: each state is the one before
    it with the entry's changes applied (a property set to null is removed)."""
    states: list[NodeState] = []
    current: dict[str, Any] | None = {}
    for row in sorted(rows, key=lambda r: r["seq"]):
        changes = None if row["changes"] is None else json.loads(row["changes"])
        if current is not None and changes is not None:
            current = {k: v for k, v in {**current, **changes}.items() if v is not None}
        else:
            current = None  # written before history was kept: what it held from here on is not known
        states.append(NodeState(row["label"], row["seq"], row["op"], row["by"], row["at"], changes,
                                None if current is None else dict(current)))
    return states


def state_at(states: list[NodeState], position: int) -> NodeState | None:
    """The node as of journal position `position`: the state its last write at or before it left; None
    when nothing had written it yet."""
    found = None
    for state in states:
        if state.seq > position:
            break
        found = state
    return found


class HistoryMissing(UserError):
    """A read as of a position the store's history does not reach (written before history was kept)."""

    def __init__(self, position: int) -> None:
        super().__init__(f"asOf: this store kept no history for what is asked as of position {position} (it was "
                         "written by a version of the service that did not keep it)", field="asOf")


def check_position(position: int, head: int) -> None:
    """UserError unless `position` is in the journal (0 to its head): a read as of a position past the
    head is refused, never answered with the present."""
    if not 0 <= position <= head:
        raise UserError(f"asOf: position {position} is not in the journal (0 to its head, {head})", field="asOf")


def node_as_of(rows: Iterable[dict[str, Any]], position: int, what: str) -> dict[str, Any]:
    """The node's properties as of `position` from its `node_history` rows; NotFound naming `what` when
    nothing had written it by then, HistoryMissing when its history does not reach that far."""
    found = state_at(node_states(rows), position)
    if found is None:
        raise NotFound(f"id: no {what} at position {position}", field="id")
    if found.state is None:
        raise HistoryMissing(position)
    return found.state


def histories(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], list[NodeState]]:
    """Rows of several nodes (each row naming its node's `label` and `id`, as the *_history_upto
    statements return them) folded into each node's states, oldest first (see `node_states`)."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault((row["label"], row["id"]), []).append(row)
    return {node: node_states(found) for node, found in grouped.items()}


def props_at(states: list[NodeState], position: int) -> dict[str, Any] | None:
    """The node's properties as of `position`; None when nothing had written it by then, HistoryMissing
    when its history does not reach that far."""
    found = state_at(states, position)
    if found is None:
        return None
    if found.state is None:
        raise HistoryMissing(position)
    return found.state
