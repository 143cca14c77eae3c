"""GraphQL queries of the belief layer: a belief, pages of them by confidence, and walks from one."""

from __future__ import annotations

import base64
from typing import Annotated, Any

import strawberry

from graph_service.api.arguments import After, BeliefId, First, MaxDepth, checked_depth
from graph_service.api.belief_types import (
    Belief,
    BeliefConnection,
    BeliefEdge,
    BeliefFilter,
    BeliefOrder,
    BeliefWalkStep,
    detail_query,
    id_numbers,
    read_belief,
)
from graph_service.api.context import caught_up, service_of
from graph_service.api.errors import user_errors
from graph_service.api.journal_types import PageInfo
from graph_service.api.long_work import off_the_loop
from graph_service.api.pages import Counted, page_size
from graph_service.api.read_pages import belief_page_now
from graph_service.api.scalars import Long
from graph_service.api.vocabularies import (
    plain,
)
from graph_service.beliefs.as_of import WalkNode, live_then, props_then, walk_node
from graph_service.errors import NotFound, UserError
from graph_service.history import check_position
from graph_service.jobs.apart import run_apart
from graph_service.service import Service
from graph_service.storage.walks import as_of_steps, walk

_CURSOR_PREFIX = "belief:"

# (query, edge followed, label of the node it reaches); a query applies to the frontier ids it matches.
UPSTREAM_STEPS: tuple[tuple[str, str, str], ...] = (
    ("belief_evidence_step", "BEARS_ON", "Evidence"),
    ("belief_root_observation_step", "ROOTED_IN", "Observation"),
    ("belief_root_item_step", "ROOTED_IN", "Item"),
    ("belief_root_belief_step", "ROOTED_IN", "Belief"),
    ("item_premises_step", "DERIVED_FROM", "Item"),
)
DEPENDENT_STEPS: tuple[tuple[str, str, str], ...] = (
    ("belief_observation_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_item_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_belief_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_bears_on_step", "BEARS_ON", "Belief"),
    ("item_dependents_step", "DERIVED_FROM", "Item"),
)


def belief_walk(service: Service, start: str, steps: tuple[tuple[str, str, str], ...],
                max_depth: int | None, as_of: int | None = None) -> list[BeliefWalkStep]:
    """Walk level by level (each node once) and describe every node reached. `as_of`: the walk over the
    edges written by that position, through the evidence rows live then, each node described as its
    history says it was then; UserError for a position past the head."""
    checked_depth(max_depth)
    service.journal.catch_up()
    table = {query: (edge, label) for query, edge, label in steps}
    if as_of is None:
        reached = walk(service.graph, [start], [(query, query) for query, _, _ in steps], max_depth)
        about = {r["id"]: WalkNode(r.get("status"), r.get("summary"), r.get("confidence"), bool(r.get("gone")))
                 for r in service.graph.run("belief_nodes_by_id", {"ids": [r.id for r in reached]})}
    else:
        check_position(as_of, service.journal.seq)
        reached = walk(service.graph, [start], as_of_steps([(query, query) for query, _, _ in steps]), max_depth,
                       upto=as_of, keep=lambda row: live_then(row, as_of))
        histories: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for h in service.graph.run("belief_walk_histories_upto", {"ids": [r.id for r in reached], "upto": as_of}):
            histories.setdefault((h["label"], h["id"]), []).append(h)
        about = {r.id: walk_node(table[r.step][1], props_then(histories.get((table[r.step][1], r.id), []), as_of))
                 for r in reached}
    out = []
    for r in sorted(reached, key=lambda r: (r.depth, id_numbers(r.id), r.id)):
        edge, label = table[r.step]
        node = about.get(r.id, WalkNode())
        out.append(BeliefWalkStep(id=r.id, label=label, depth=r.depth, via=r.via, edge=edge, status=node.status,
                                  summary=node.summary, confidence=node.confidence, gone=node.gone))
    return out


def _belief_then(props: dict[str, Any], as_of: int) -> Belief:
    # Its evidence, breakdown, families, versions and assertions fields answer as of the position too.
    belief = Belief.of(props)
    belief.as_of = as_of
    return belief


def belief_props(service: Service, belief_id: str) -> dict[str, Any]:
    rows = service.graph.run("belief_by_id", {"id": belief_id})
    if not rows:
        raise NotFound(f"id: no belief {belief_id!r}", field="id")
    return rows[0]["belief"]


def encode_cursor(key: float, belief_id: str) -> str:
    """A keyset cursor: the belief's confidence key (units of 1e-9, a whole number) and its id."""
    return base64.b64encode(f"{_CURSOR_PREFIX}{int(key)}:{belief_id}".encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[int | None, str | None]:
    if cursor is None:
        return None, None
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if not text.startswith(_CURSOR_PREFIX):
            raise ValueError
        key, _, belief_id = text[len(_CURSOR_PREFIX):].partition(":")
        if not belief_id:
            raise ValueError
        return int(key), belief_id
    except ValueError:
        raise UserError(f"after: {cursor!r} is not a belief cursor", field="after") from None


WalkAsOf = Annotated[Long | None, strawberry.argument(
    description="Walk as of this journal position (0 to the head), from the graph's history: the edges written "
                "by then, through the evidence rows live then, each node as it was then. Null: now.")]


@strawberry.type
class BeliefQuery:
    @strawberry.field(description="One belief with its evidence, families, versions, breakdown and assertions."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def belief(self, info: strawberry.Info[Any, Any], id: BeliefId,
               as_of: Annotated[Long | None, strawberry.argument(
                   description="Answer as of this journal position (0 to the head), from the graph's history: "
                               "what was believed then and why. Null: now.")] = None) -> Belief | None:
        # It catches up only if the graph is behind; it reads only the parts the selection can need.
        return read_belief(service_of(info), id, as_of, detail_query(info.selected_fields))

    @strawberry.field(description="Beliefs by filter, ordered by confidence, a page at a time (first ≤ 500).")
    @user_errors
    async def beliefs(self, info: strawberry.Info[Any, Any],
                filter: Annotated[BeliefFilter | None, strawberry.argument(
                    description="Only the beliefs matching it; null: every belief.")] = None,
                order_by: Annotated[BeliefOrder, strawberry.argument(
                    description="By confidence, either way; ties by id.")] = BeliefOrder.CONFIDENCE_DESC,
                first: First = None, after: After = None,
                as_of: Annotated[Long | None, strawberry.argument(
                    description="Answer as of this journal position (0 to the head), from the graph's history: "
                                "the beliefs as they were then, filtered and ordered on their state then (read "
                                "from every belief created by then). Null: now.")] = None) -> BeliefConnection:
        size = page_size(first)
        after_key, after_id = decode_cursor(after)
        service = caught_up(info)
        wanted = filter or BeliefFilter()
        params = {"status": plain(wanted.status), "subject": wanted.subject, "kind": plain(wanted.kind)}
        if as_of is None:
            rows = belief_page_now(service.graph, params, descending=order_by is BeliefOrder.CONFIDENCE_DESC,
                                   after_key=after_key, after_id=after_id, limit=size + 1)
            more, rows = len(rows) > size, rows[:size]
            edges = [BeliefEdge(cursor=encode_cursor(r["key"], r["belief"]["id"]),
                                node=Belief.of(r["belief"])) for r in rows]
            counted = Counted(lambda: service.graph.run("belief_count", params)[0]["total"], after is not None)
        else:
            check_position(as_of, service.journal.seq)
            # Every belief created by then, folded from its history: in a process of its own
            # (graph_service.jobs.apart), off the event loop; the page's rows come back.
            page = await off_the_loop(lambda: run_apart(
                service.graph, "beliefs_as_of", as_of=as_of, **params,
                descending=order_by is BeliefOrder.CONFIDENCE_DESC, after_key=after_key, after_id=after_id,
                limit=size), "past")
            edges = [BeliefEdge(cursor=encode_cursor(key, props["id"]), node=_belief_then(props, as_of))
                     for key, props in page["rows"]]
            more, counted = page["more"], Counted(page["total"], after is not None)
        return BeliefConnection(edges=edges, page_info=PageInfo.of([e.cursor for e in edges], more, counted),
                                counted=counted)

    @strawberry.field(description="What a belief rests on: evidence, its roots (observations, items, beliefs) "
                                  "and their own upstream, each with its depth and the edge it came through.")
    @user_errors
    def belief_upstream(self, info: strawberry.Info[Any, Any], id: BeliefId,
                        max_depth: MaxDepth = None, as_of: WalkAsOf = None) -> list[BeliefWalkStep]:
        service = caught_up(info)
        if as_of is None:
            belief_props(service, id)
        else:
            check_position(as_of, service.journal.seq)
            history = service.graph.run("belief_histories_upto", {"ids": [id], "upto": as_of})
            if props_then([h for h in history if h["label"] == "Belief"], as_of) is None:
                raise NotFound(f"id: no belief {id!r} at position {as_of}", field="id")
        return belief_walk(service, id, UPSTREAM_STEPS, max_depth, as_of)

    @strawberry.field(description="What falls if this node (a belief, observation or item) goes: the live "
                                  "evidence rooted in it, the beliefs that evidence bears on, and onwards.")
    @user_errors
    def belief_dependents(self, info: strawberry.Info[Any, Any],
                          id: Annotated[str, strawberry.argument(description="A belief's, observation's or item's "
                                                                             "id.")],
                          max_depth: MaxDepth = None, as_of: WalkAsOf = None) -> list[BeliefWalkStep]:
        service = service_of(info)
        if not id.strip():
            raise UserError("id must be a non-empty string", field="id")
        return belief_walk(service, id, DEPENDENT_STEPS, max_depth, as_of)


# ---- writes ------------------------------------------------------------------------------------
