"""GraphQL queries of the knowledge store: items and pages of them, walks, disputes, flags, snapshots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import After, First, ItemId, MaxDepth, checked_depth
from graph_service.api.connections import Connection, connection_of
from graph_service.api.context import caught_up, knowledge_now, knowledge_read
from graph_service.api.errors import user_errors
from graph_service.api.journal_types import PageInfo
from graph_service.api.knowledge_as_of import (
    CLOCK,
    FLAGS,
    ITEMS,
    knowledge_as_of,
    stale_as_of,
)
from graph_service.api.knowledge_types import (
    MAX_WALK_START,
    About,
    Dispute,
    Fingerprints,
    Flag,
    Item,
    ItemConnection,
    ItemEdge,
    ItemFilter,
    ItemsThen,
    Kinds,
    Redecision,
    Redecisions,
    Relation,
    Scope,
    StartIds,
    WalkStep,
    item_node,
    item_of,
    item_record,
    items_at,
)
from graph_service.api.long_work import off_the_loop
from graph_service.api.pages import Page, page_size
from graph_service.api.read_pages import (
    ItemPage,
    dispute_of,
    dispute_page_now,
    flag_of,
    flag_page_now,
    item_page,
    item_page_now,
)
from graph_service.api.scalars import Long
from graph_service.api.vocabularies import plain, plain_list
from graph_service.errors import UserError
from graph_service.fingerprint_as_of import fingerprints_kept
from graph_service.history import check_position
from graph_service.jobs.apart import run_apart
from graph_service.knowledge import planning
from graph_service.knowledge.queries import FIND_FILTERS
from graph_service.partial_reads import NeedMore
from graph_service.projection import KEEPS_NOW_READS
from graph_service.service import Service
from graph_service.storage.walks import ITEM_COMPONENT, ITEM_DEPENDENTS, ITEM_UPSTREAM, as_of_steps, walk


def _plain_filter(filter: ItemFilter) -> dict[str, Any]:
    """The filter as the domain's find() takes it: vocabulary values as plain strings."""
    given = strawberry.asdict(filter)
    return {**given, "kind": plain_list(filter.kind), "status": plain_list(filter.status),
            "source": plain(filter.source)}


def _start(ids: list[str]) -> list[str]:
    if not ids or len(ids) > MAX_WALK_START:
        raise UserError(f"ids must name 1 to {MAX_WALK_START} items", field="ids")
    return ids


ReadAsOf = Annotated[Long | None, strawberry.argument(
    description="Answer as of this journal position (0 to the head), from the graph's history: as a replay of "
                "the journal up to it would. Null: now.")]
WalkAsOf = Annotated[Long | None, strawberry.argument(
    description="Walk as of this journal position (0 to the head): the edges written by then, each item as "
                "it was then. Null: now.")]


def _walk(info: strawberry.Info[Any, Any], ids: list[str], steps: Any, max_depth: int | None,
          as_of: int | None) -> list[WalkStep]:
    """The walk from `ids` over `steps`, at most `max_depth` levels (None: to the end), now or as of a position."""
    checked_depth(max_depth)
    service = caught_up(info)
    if as_of is not None:
        return _walk_as_of(service, ids, steps, max_depth, as_of)
    read = knowledge_now(info)
    for item_id in _start(ids):
        item_record(read, item_id)
    reached = walk(service.graph, ids, steps, max_depth)
    found = read.items(r.id for r in reached)
    return [WalkStep(id=r.id, depth=r.depth, via=r.via, edge=r.step,
                     item=item_of(read, found[r.id]) if r.id in found else None)
            for r in reached]


def _walk_as_of(service: Service, ids: list[str], steps: Any, max_depth: int | None, as_of: int) -> list[WalkStep]:
    """The walk over the edges written by position `as_of`, each item as its history says it was then."""
    check_position(as_of, service.journal.seq)
    items_at(service, _start(ids), as_of)  # NotFound for a start that was not there then
    reached = walk(service.graph, ids, as_of_steps(steps), max_depth, upto=as_of)
    items = items_at(service, [r.id for r in reached], as_of)
    return [WalkStep(id=r.id, depth=r.depth, via=r.via, edge=r.step, item=items[r.id]) for r in reached]


def _found_item(props: dict[str, Any], reasons: list[str], as_of: int | None) -> Item:
    """An item of a read (now, or as of a position `as_of`), with its staleness there (`reasons`)."""
    item = Item.of(props, reasons)
    item.as_of = as_of
    return item


def _items_then(service: Service, page: Connection[Any], as_of: int | None,
                named: Callable[[Any], list[str]]) -> Connection[Any]:
    """A page of flags or disputes read as of a position, each naming its items (`named`) as they were
    then: the page's items read together, when first asked for."""
    if as_of is not None:
        then = ItemsThen(service, [i for edge in page.edges for i in named(edge.node)], as_of)
        for edge in page.edges:
            edge.node.then = then
    return page


@strawberry.type
class KnowledgeQuery:
    @strawberry.field(description="One item by id."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def item(self, info: strawberry.Info[Any, Any], id: ItemId,
             as_of: Annotated[Long | None, strawberry.argument(
                 description="Answer as of this journal position (0 to the head), from the graph's history: "
                             "its status, support and why then. Null: now.")] = None) -> Item | None:
        service = caught_up(info)
        if as_of is None:
            return item_node(knowledge_now(info), id)
        check_position(as_of, service.journal.seq)
        return items_at(service, [id], as_of)[id]

    @strawberry.field(description="Items matching a filter, by id, a page at a time (first ≤ 500).")
    @user_errors
    async def items(self, info: strawberry.Info[Any, Any],
              filter: Annotated[ItemFilter | None, strawberry.argument(
                  description="Only the items matching it; null: every item.")] = None,
              first: First = None, after: After = None, as_of: ReadAsOf = None) -> ItemConnection:
        size = page_size(first)
        service = caught_up(info)
        given = {k: v for k, v in _plain_filter(filter).items() if v is not None} if filter else {}
        assert set(given) <= set(FIND_FILTERS)
        if not isinstance(given.get("scope", {}), dict):  # a pattern is matched key by key
            raise UserError("filter.scope must be an object", field="scope")
        if as_of is None:
            page = item_page_now(service.graph, knowledge_now(info), given, size, after,
                                 by_key_windows=service.journal.keeps_at_least(KEEPS_NOW_READS))
        elif given.get("ids") is not None:  # the same find over the named items, their flags and the clock then
            ids = list(dict.fromkeys(given["ids"]))
            page = item_page(knowledge_as_of(service, as_of, frozenset({ITEMS, FLAGS, CLOCK}), ids=ids), given,
                             size, after)
        else:  # over every item's history, the flags and the clock then: in a process of its own
            check_position(as_of, service.journal.seq)  # (graph_service.jobs.apart), off the event loop
            page = ItemPage.from_json(await off_the_loop(lambda: run_apart(
                service.graph, "items_as_of", as_of=as_of, given=given, size=size, after=after), "past"))
        edges = [ItemEdge(cursor=props["id"], node=_found_item(props, reasons, as_of)) for props, reasons in page.rows]
        end = edges[-1].cursor if edges else None
        return ItemConnection(edges=edges, page_info=PageInfo.of([e.cursor for e in edges], page.more, page.counted),
                              counted=page.counted, has_next_page=page.more, end_cursor=end)

    @strawberry.field(description="Everything the items rest on: premises transitively and same-key competitors.")
    @user_errors
    def upstream(self, info: strawberry.Info[Any, Any], ids: StartIds,
                 max_depth: MaxDepth = None, as_of: WalkAsOf = None) -> list[WalkStep]:
        return _walk(info, ids, ITEM_UPSTREAM, max_depth, as_of)

    @strawberry.field(description="Everything derived from the items, transitively (their premises' dependents). "
                                  "Not all that would change if they went: `impact` answers that.")
    @user_errors
    def dependents(self, info: strawberry.Info[Any, Any], ids: StartIds,
                   max_depth: MaxDepth = None, as_of: WalkAsOf = None) -> list[WalkStep]:
        return _walk(info, ids, ITEM_DEPENDENTS, max_depth, as_of)

    @strawberry.field(description="The connected component: premise edges both ways and shared keys.")
    @user_errors
    def component(self, info: strawberry.Info[Any, Any], ids: StartIds,
                  max_depth: MaxDepth = None, as_of: WalkAsOf = None) -> list[WalkStep]:
        return _walk(info, ids, ITEM_COMPONENT, max_depth, as_of)

    @strawberry.field(description="What a decision would be given now, or as of a position (nothing is "
                                  "recorded).")
    @user_errors
    async def snapshot(self, info: strawberry.Info[Any, Any], about: About = None, relation: Relation = None,
                       scope: Scope = None, kinds: Kinds = None, as_of: ReadAsOf = None) -> JSON:
        service = caught_up(info)
        names = plain_list(kinds)
        read = knowledge_now(info)
        planning.plan_snapshot(read.state, about, relation, scope, names)  # validates only
        if as_of is None:
            try:
                return read.snapshot(about=about, relation=relation, scope=scope, kinds=names)
            except NeedMore:  # about every subject: every item, read as of then, as below
                as_of = read.upto
        check_position(as_of, service.journal.seq)
        # Every item's history then: in a process of its own (graph_service.jobs.apart), off the event loop.
        return await off_the_loop(lambda: run_apart(service.graph, "snapshot_as_of", as_of=as_of, about=about,
                                                    relation=relation, scope=scope, kinds=names), "past")

    @strawberry.field(description="Re-run the recorded decision snapshots as if `retracted` had never been written. "
                                  "The service cannot run a client's decision, so the answer it compares is the "
                                  "set of facts given: changed facts are answer changes, the rest justification.")
    async def redecide(self, info: strawberry.Info[Any, Any],
                       retracted: Annotated[list[str], strawberry.argument(
                           description=f"The items to suppose never written (1 to {MAX_WALK_START} ids).")]
                       ) -> Redecisions:
        def work() -> list[list[dict[str, Any]]]:
            service = caught_up(info)
            read = knowledge_read(service)
            for item_id in _start(retracted):
                item_record(read, item_id)
            return run_apart(service.graph, "redecide", retracted=retracted)  # see graph_service.jobs.apart

        changed, justified = await off_the_loop(work)
        return Redecisions(
            answer_changes=[Redecision(snapshot=r["id"], old=r["old"], new=r["new"]) for r in changed],
            justification_only=[Redecision(snapshot=r["id"], old=r["old"], new=r["new"]) for r in justified],
        )

    @strawberry.field(description="The open disputes, oldest first, a page at a time (first ≤ 500); one "
                                  "question to a person each.")
    @user_errors
    async def disputes(self, info: strawberry.Info[Any, Any], first: First = None, after: After = None,
                       as_of: ReadAsOf = None) -> Connection[Dispute]:
        service = caught_up(info)
        if as_of is None:
            page = dispute_page_now(service.graph, first, after, service.journal.seq)
        else:
            check_position(as_of, service.journal.seq)
            # Every dispute's history then: in a process of its own (graph_service.jobs.apart), off the event loop.
            page = Page.from_json(await off_the_loop(lambda: run_apart(
                service.graph, "disputes_as_of", as_of=as_of, first=first, after=after), "past"), dispute_of)
        return _items_then(service, connection_of("dispute", page.map(Dispute.of)), as_of,
                           lambda dispute: dispute.items)

    @strawberry.field(description="Flags in the order raised, a page at a time (first ≤ 500); pending: only "
                                  "pending (true) or ended (false) ones.")
    @user_errors
    async def flags(self, info: strawberry.Info[Any, Any],
                    pending: Annotated[bool | None, strawberry.argument(
                        description="true: only pending flags; false: only ended ones; null: every flag.")] = None,
                    first: First = None, after: After = None, as_of: ReadAsOf = None) -> Connection[Flag]:
        service = caught_up(info)
        if as_of is None:
            page = flag_page_now(service.graph, pending, first, after, service.journal.seq)
        else:  # the flags raised by then, pending or ended as they were then
            check_position(as_of, service.journal.seq)
            # Every flag's history then: in a process of its own (graph_service.jobs.apart), off the event loop.
            page = Page.from_json(await off_the_loop(lambda: run_apart(
                service.graph, "flags_as_of", as_of=as_of, pending=pending, first=first, after=after), "past"),
                flag_of)
        return _items_then(service, connection_of("flag", page.map(Flag.of)), as_of, lambda flag: flag.covers)

    @strawberry.field(description="Must this item be re-confirmed? Read from pending flags and the clock.")
    @user_errors
    def stale(self, info: strawberry.Info[Any, Any], id: ItemId, as_of: ReadAsOf = None) -> list[str]:
        service = caught_up(info)
        if as_of is not None:
            return stale_as_of(service, id, as_of)
        read = knowledge_now(info)
        item_record(read, id)
        return read.stale_reasons(id)

    @strawberry.field(description="What was learned and from whom; refuted, retracted, expired, disputed, flagged.")
    @user_errors
    async def report(self, info: strawberry.Info[Any, Any], as_of: ReadAsOf = None) -> JSON:
        service = caught_up(info)
        if as_of is None:  # every item, flag and refusal: read as of the position the graph holds, as below
            as_of = knowledge_read(service).upto
        check_position(as_of, service.journal.seq)
        # The whole store's history then: in a process of its own (graph_service.jobs.apart), off the event loop.
        return await off_the_loop(lambda: run_apart(service.graph, "report_as_of", as_of=as_of), "past")

    @strawberry.field(description="Hashes of what the store believes (items and beliefs).")
    async def fingerprint(self, info: strawberry.Info[Any, Any],
                          as_of: Annotated[Long | None, strawberry.argument(
                              description="Answer as of this journal position (0 to the head), from the graph's "
                                          "history: what the store believed then. It reads every item and belief "
                                          "and their writes up to then, as verify does. Null: now.")] = None,
                          ) -> Fingerprints:
        if as_of is None:
            service = caught_up(info)
            if service.journal.keeps_at_least(KEEPS_NOW_READS):
                # The two running sums on the Fingerprint nodes, at the position the graph holds.
                return Fingerprints(**fingerprints_kept(service.graph, knowledge_read(service).upto))
            return Fingerprints.of(service.state)  # a store written before the graph kept the beliefs' sum

        def work() -> Fingerprints:
            # Whole-store (every Item and Belief and their writes by then): in a process of its own, as verify is.
            service = caught_up(info)
            check_position(as_of, service.journal.seq)
            return Fingerprints(**run_apart(service.graph, "fingerprints_as_of", as_of=as_of))

        return await off_the_loop(work, "past")

    @strawberry.field(description="The fingerprints of the store rebuilt from its journal: as it was at entry "
                                  "`upto`, or as if the `skip` items' own entries had never been written.")
    async def rebuild(self, info: strawberry.Info[Any, Any],
                      upto: Annotated[int | None, strawberry.argument(
                          description="Rebuild from the entries up to this journal position (not negative); null: "
                                      "every entry.")] = None,
                      skip: Annotated[list[str] | None, strawberry.argument(
                          description="Item ids whose own entries are left out, as if never written.")] = None,
                      ) -> Fingerprints:
        def work() -> Fingerprints:
            if upto is not None and upto < 0:
                raise UserError("upto must not be negative", field="upto")
            service = caught_up(info)  # the whole journal, replayed in a process of its own (graph_service.jobs.apart)
            return Fingerprints(**run_apart(service.graph, "rebuild", upto=upto, skip=skip or []))

        return await off_the_loop(work)
