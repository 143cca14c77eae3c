"""`history(id)`: a node's every state, each with the journal entry that caused it (issue 11, part 3),
read from the changes the projection keeps on the node's WROTE edges (graph_service.history)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import After, First
from graph_service.api.connections import Connection, Edge, paged
from graph_service.api.context import caught_up
from graph_service.api.errors import user_errors
from graph_service.api.scalars import Long
from graph_service.errors import NotFound, UserError
from graph_service.history import NodeState as PlainState
from graph_service.history import node_states, state_at


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


@strawberry.type(description="A node whose state differs between two journal positions.")
class NodeChange:
    id: strawberry.ID = strawberry.field(description="The node's id.")
    label: str = strawberry.field(description="The node's label in the graph (Item, Belief, Evidence, ...).")
    before: JSON | None = strawberry.field(description="Its properties as of `from`; null when nothing had "
                                                       "written it yet (or that write predates kept history).")
    after: JSON | None = strawberry.field(description="Its properties as of `to`; null when a write predates "
                                                      "kept history.")
    positions: list[Long] = strawberry.field(description="The journal positions after `from` up to `to` that "
                                                         "wrote it, in order.")


def node_change(history: list[dict[str, Any]], written: dict[str, Any], start: int, end: int) -> NodeChange:
    """What `changes(from: start, to: end)` says of one node `written` (a nodes_written_between row), folded from
    its history rows (node_history_upto's, up to `end`, or more)."""
    states = node_states(history)
    before, after = state_at(states, start), state_at(states, end)
    return NodeChange(id=strawberry.ID(written["id"]), label=written["label"],
                      before=None if before is None else before.state, after=None if after is None else after.state,
                      positions=[Long(s.seq) for s in states if start < s.seq <= end])


def _range(head: int, start: int, end: int) -> None:
    if start < 0 or end < start:
        raise UserError(f"from and to must satisfy 0 <= from <= to; got from {start}, to {end}", field="to")
    if end > head:
        raise UserError(f"to: position {end} is past the journal's head ({head})", field="to")


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

    @strawberry.field(description="The nodes whose state the entries after `from` up to `to` changed, with "
                                  "their states at both positions, in the order they were first changed; a "
                                  "page at a time. Costs the entries in the range and the page's nodes' writes "
                                  "up to `to`.")
    @user_errors
    def changes(self, info: strawberry.Info[Any, Any],
                from_: Annotated[Long, strawberry.argument(name="from", description="The earlier journal "
                                                                                    "position (0: the start).")],
                to: Annotated[Long, strawberry.argument(description="The later journal position, at most the "
                                                                     "head.")],
                first: First = None, after: After = None) -> Connection[NodeChange]:
        service = caught_up(info)
        _range(service.journal.seq, from_, to)
        written = service.graph.run("nodes_written_between", {"from": from_, "to": to})
        page = paged("changes", list(enumerate(written, start=1)), first, after)
        edges = [Edge(cursor=edge.cursor, node=node_change(
            service.graph.run("node_history_upto", {"id": edge.node["id"], "upto": to}), edge.node, from_, to))
            for edge in page.edges]
        return Connection(edges=edges, page_info=page.page_info, counted=page.counted)
