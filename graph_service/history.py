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
