"""`history(id)`: a node's every state, each with the journal entry that caused it (issue 11, part 3),
read from the changes the projection keeps on the node's WROTE edges (graph_service.history)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import After, First
from graph_service.api.connections import Connection, paged
from graph_service.api.context import caught_up
from graph_service.api.errors import user_errors
from graph_service.api.scalars import Long
from graph_service.errors import NotFound
from graph_service.history import NodeState as PlainState
from graph_service.history import node_states


@strawberry.type(description="A node as one journal entry left it.")
class NodeState:
    label: str = strawberry.field(description="The node's label in the graph (Item, Belief, Evidence, ...).")
    position: Long = strawberry.field(description="The journal position of the entry that wrote it.")
    op: str = strawberry.field(description="That entry's operation.")
    by: str = strawberry.field(description="That entry's author (the principal who wrote it).")
    at: Long = strawberry.field(description="That entry's time, in milliseconds since 1970 (UTC).")
    changes: JSON | None = strawberry.field(description="The properties that entry set on the node (null: "
                                                        "removed); null when the store was written before "
                                                        "history was kept.")
    state: JSON | None = strawberry.field(description="The node's properties after that entry; null when an "
                                                      "earlier write predates kept history.")

    @classmethod
    def of(cls, s: PlainState) -> NodeState:
        return cls(label=s.label, position=Long(s.seq), op=s.op, by=s.by, at=Long(s.at), changes=s.changes,
                   state=s.state)


@strawberry.type
class HistoryQuery:
    @strawberry.field(description="Every state of the node with this id, oldest first, each with the entry "
                                  "(operation, author, time) that caused it; a page at a time, its cursor the "
                                  "journal position. Costs what that node's writes cost, never the store.")
    @user_errors
    def history(self, info: strawberry.Info[Any, Any],
                id: Annotated[strawberry.ID, strawberry.argument(description="Any node's id, as `node(id)` "
                                                                             "takes it.")],
                first: First = None, after: After = None) -> Connection[NodeState]:
        rows = caught_up(info).graph.run("node_history", {"id": str(id)})
        if not rows:
            raise NotFound(f"id: no node {str(id)!r} was written", field="id")
        states = node_states(rows)
        return paged("history", [(s.seq, NodeState.of(s)) for s in states], first, after)
