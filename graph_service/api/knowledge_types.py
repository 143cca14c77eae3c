"""GraphQL for the knowledge store: items, walks, disputes, flags, snapshots, and a mutation per write."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import After, First, ItemId, MaxDepth, Why, checked_depth
from graph_service.api.connections import Connection, connection_of
from graph_service.api.context import author_of, caught_up, journal_write, knowledge_now, knowledge_read, service_of
from graph_service.api.errors import user_errors
from graph_service.api.journal_types import PageInfo
from graph_service.api.knowledge_as_of import (
    CLOCK,
    FLAGS,
    ITEMS,
    knowledge_as_of,
    stale_as_of,
)
from graph_service.api.long_work import off_the_loop
from graph_service.api.node import Node
from graph_service.api.pages import Counted, Page, page_size
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
from graph_service.api.vocabularies import FlagKind, ItemKind, ItemSource, ItemStatus, plain, plain_list
from graph_service.errors import NotFound, UserError
from graph_service.fingerprint_as_of import fingerprints_kept
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.history import check_position, node_as_of
from graph_service.jobs.apart import run_apart
from graph_service.knowledge import planning
from graph_service.knowledge.as_of import dispute_of_props
from graph_service.knowledge.queries import FIND_FILTERS
from graph_service.knowledge.records import FlagRecord, ItemRecord, dispute_id, question_text
from graph_service.knowledge.rules import DisputeEvent
from graph_service.partial_reads import NeedMore
from graph_service.projection import KEEPS_NOW_READS
from graph_service.service import Service
from graph_service.state import StoreState, status_changes
from graph_service.storage.walks import ITEM_COMPONENT, ITEM_DEPENDENTS, ITEM_UPSTREAM, as_of_steps, walk

MAX_WALK_START = 100


@strawberry.type(description="A knowledge item: a fact, rule, skill, action or episode, with its state.")
class Item(Node):
    id: strawberry.ID = strawberry.field(description="k-<hash>: its content id (kind, body and scope), so the same "
                                                     "content written twice is one item.")
    kind: ItemKind = strawberry.field(description="What it is: fact, rule, skill, action or episode.")
    s: str | None = strawberry.field(description="A fact's subject; null for a body without one.")
    r: str | None = strawberry.field(description="A fact's relation; null for a body without one.")
    o: JSON | None = strawberry.field(description="A fact's object: a scalar as written, anything else as "
                                                  "canonical JSON text; null for a body without one.")
    body: JSON = strawberry.field(description="Its content as written (a fact's is {s, r, o}).")
    scope: JSON = strawberry.field(description="Where it holds, an object ({} for everywhere).")
    key: str | None = strawberry.field(description="[scope, s, r] as canonical JSON: one value stands per key at a "
                                                   "time; null for a body without s and r.")
    summary: str = strawberry.field(description="\"s r o\" for an item with a key, else its kind.")
    source: ItemSource = strawberry.field(description="The source of the assertion shown (the standing one, else the "
                                               "latest): outcome, person, spec or verified.")
    by: str = strawberry.field(description="The principal who wrote that assertion.")
    status: ItemStatus = strawberry.field(description="active, hypothesis, disputed, refuted, expired or retracted.")
    rank: int = strawberry.field(description="That source's rank: outcome 4, person 3, spec 2, verified 1.")
    support: list[str] = strawberry.field(description="The journal positions of the live assertions it rests on.")
    valid_since: JSON | None = strawberry.field(description="When it starts to hold, as the writer gave it "
                                                            "(`valid`); null: open.")
    valid_until: JSON | None = strawberry.field(description="When it stops holding, as the writer gave it "
                                                            "(`valid`); null: open.")
    learned_at: int = strawberry.field(description="The journal position it was first written at.")
    confirmed_at: int | None = strawberry.field(description="The journal position of its latest live assertion; "
                                                            "null when none is live.")
    premises: list[str] = strawberry.field(description="The ids of the items it rests on (derivedFrom of every "
                                                       "assertion, retracted ones too).")
    promoted: bool = strawberry.field(description="True once admitted as present or promoted; a held rule, skill "
                                                  "or action is not.")
    held_why: str | None = strawberry.field(description="Why the gates held it; null unless held.")
    reconfirm_after: Long | None = strawberry.field(description="Store-clock units after its assertion until it "
                                                               "needs re-confirmation; null: never.")
    expires_at: Long | None = strawberry.field(description="The store-clock time it expires at; null: never.")
    why: str = strawberry.field(description="Why it has its status, in words; empty when nothing needs saying.")
    uses: int = strawberry.field(description="How many times decisions used it (markUsed).")
    wrong_uses: int = strawberry.field(description="How many of those uses were found wrong.")
    # None: not read yet (an item as of a past position reads its staleness then only when asked).
    reasons: strawberry.Private[list[str] | None] = dataclasses.field(default_factory=list)
    as_of: strawberry.Private[int | None] = None

    @strawberry.field(description="Pending flags or the clock ask for re-confirmation (as of the position the "
                                  "item is read at: its flags and the store clock then).")
    def stale(self, info: strawberry.Info[Any, Any]) -> bool:
        return bool(self._stale_reasons(info))

    @strawberry.field(description="Why it needs re-confirmation (pending flags, the clock); empty when it does "
                                  "not. As of the position the item is read at: its flags and the clock then.")
    def stale_reasons(self, info: strawberry.Info[Any, Any]) -> list[str]:
        return self._stale_reasons(info)

    def _stale_reasons(self, info: strawberry.Info[Any, Any]) -> list[str]:
        if self.reasons is None:
            assert self.as_of is not None  # an item read now always carries its reasons
            self.reasons = stale_as_of(service_of(info), str(self.id), self.as_of)
        return self.reasons

    @classmethod
    def of(cls, props: dict[str, Any], stale_reasons: list[str]) -> Item:
        def parsed(name: str) -> Any:
            return json.loads(props[name]) if isinstance(props.get(name), str) else props.get(name)

        return cls(
            id=strawberry.ID(props["id"]), kind=ItemKind(props["kind"]), s=props.get("s"), r=props.get("r"),
            o=props.get("o"),
            body=parsed("body"), scope=parsed("scope"), key=props.get("key"), summary=props.get("summary", ""),
            source=ItemSource(props["source"]), by=props["by"], status=ItemStatus(props["status"]), rank=props["rank"],
            support=[str(s) for s in props.get("support") or []], valid_since=props.get("valid_since"),
            valid_until=props.get("valid_until"), learned_at=props["learned_at"],
            confirmed_at=props.get("confirmed_at"), premises=list(props.get("premises") or []),
            promoted=bool(props.get("promoted")), held_why=props.get("held_why"),
            reconfirm_after=props.get("reconfirm_after"), expires_at=props.get("expires_at"),
            reasons=stale_reasons, why=props.get("why") or "",
            uses=props.get("uses") or 0, wrong_uses=props.get("wrong_uses") or 0,
        )


@strawberry.type(description="One item of a page and the cursor to resume after it.")
class ItemEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this item (its id).")
    node: Item = strawberry.field(description="The item.")


@strawberry.type(description="A page of items by id, with where it ends and how many match in all.")
class ItemConnection:
    edges: list[ItemEdge] = strawberry.field(description="This page's items, by id.")
    page_info: PageInfo = strawberry.field(description="Whether there are more, and the cursors that bound it.")
    counted: strawberry.Private[Counted]
    # Kept from before items was a Relay connection, for the clients that read them.
    has_next_page: bool = strawberry.field(description="True when items follow this page.",
                                           deprecation_reason="Use pageInfo.hasNextPage.")
    end_cursor: str | None = strawberry.field(description="The last item's cursor; null for an empty page.",
                                              deprecation_reason="Use pageInfo.endCursor.")

    @strawberry.field(description="How many items match, across every page.")
    def total_count(self) -> int:
        # Read only when asked: it counts every item the filter selects (pages.Counted).
        return self.counted.total


@strawberry.type(description="A node a walk reached: its depth and the node and edge it was reached through.")
class WalkStep:
    id: str = strawberry.field(description="The id of the item reached.")
    depth: int = strawberry.field(description="Steps from the nearest start item (1: next to one).")
    via: str = strawberry.field(description="The item it was reached from.")
    edge: str = strawberry.field(description="The edge followed: DERIVED_FROM (a premise) or SAME_KEY (a "
                                             "competitor on its key).")
    item: Item | None = strawberry.field(description="The item reached; null if the store does not hold it.")


@strawberry.type(description="An item whose status changed, before and after.")
class StatusChange:
    id: str = strawberry.field(description="The item's id.")
    before: ItemStatus = strawberry.field(description="Its status before (retracted for a new item).")
    after: ItemStatus = strawberry.field(description="Its status after.")

    @classmethod
    def of(cls, item_id: str, before: str, after: str) -> StatusChange:
        return cls(id=item_id, before=ItemStatus(before), after=ItemStatus(after))


@strawberry.type(description="What adding an item did: admitted (present, promoted or held) or refused, and why.")
class AddOutcome:
    id: str | None = strawberry.field(description="The item's content id; null when refused.")
    status: str = strawberry.field(description="Its status after the write (an ItemStatus value); refused when "
                                               "refused.")
    admission: str = strawberry.field(description="present, promoted, held or refused.")
    why: str | None = strawberry.field(description="The gates' reason, for a held or refused item.")
    seq: int = strawberry.field(description="The journal position of the write (a refusal is journalled too).")
    changes: list[StatusChange] = strawberry.field(description="Every item whose status the write changed.")


@strawberry.type(description="What a knowledge write did: its journal position and the status changes.")
class WriteOutcome:
    seq: int = strawberry.field(description="The journal position of the write.")
    changes: list[StatusChange] = strawberry.field(description="Every item whose status the write changed.")
    id: str | None = strawberry.field(default=None, description="The flag a raiseFlag or reconfirmItem raised; "
                                                                "null for other writes.")


@strawberry.type(description="What the store believes, as hashes: the whole, and its knowledge and belief parts.")
class Fingerprints:
    store: str = strawberry.field(description="sha256 (hex) over the knowledge and belief fingerprints.")
    knowledge: str = strawberry.field(description="Every present item with status, rank, support and time range.")
    beliefs: str = strawberry.field(description="Every belief with status and confidence rounded to 1e-9.")
    position: int = strawberry.field(description="The journal position this state is at.")

    @classmethod
    def of(cls, state: StoreState) -> Fingerprints:
        return cls(**state.fingerprints())


@strawberry.input(description="A proposed item.")
class ItemInput:
    kind: ItemKind = strawberry.field(description="What it is.")
    body: JSON = strawberry.field(description="Its content; a fact's is an object with s, r and o.")
    source: ItemSource = strawberry.field(description="Where it came from; verified needs `of`.")
    scope: JSON | None = strawberry.field(default=None, description="Where it holds, an object.")
    derived_from: list[str] | None = strawberry.field(default=None, description="The items it rests on (premises).")
    supersedes: str | None = strawberry.field(default=None, description="The item it replaces.")
    reconfirm_after: Long | None = strawberry.field(default=None, description="Clock units until it needs "
                                                                             "re-confirmation; default by kind "
                                                                             "and source.")
    valid: list[JSON] | None = strawberry.field(default=None, description="When it holds: [since, until], each a "
                                                                         "number, a string or null (open).")
    level: str | None = strawberry.field(default=None, description="Free text kept in its journal entry; the store "
                                                                   "does not read it.")
    of: str | None = strawberry.field(default=None, description="For a verified item: the stored decision it is.")
    evidence: JSON | None = strawberry.field(default=None, description="What the writer offers for it, a list of "
                                                                       "plain JSON kept in its journal entry; the "
                                                                       "store does not read it.")


@strawberry.input(description="Item filters; every one given must match.")
class ItemFilter:
    ids: list[str] | None = strawberry.field(default=None, description="Only these items.")
    kind: list[ItemKind] | None = strawberry.field(default=None, description="Any of these kinds.")
    status: list[ItemStatus] | None = strawberry.field(default=None, description="Any of these statuses.")
    source: ItemSource | None = strawberry.field(default=None, description="This source.")
    by: str | None = strawberry.field(default=None, description="Written by this principal.")
    s: str | None = strawberry.field(default=None, description="A fact's subject.")
    r: str | None = strawberry.field(default=None, description="A fact's relation.")
    key: str | None = strawberry.field(default=None, description="On this key.")
    scope: JSON | None = strawberry.field(default=None, description="A pattern object, matched key by key.")
    stale: bool | None = strawberry.field(default=None, description="Only items that need (true) or do not need "
                                                                    "(false) re-confirmation.")


def _plain_filter(filter: ItemFilter) -> dict[str, Any]:
    """The filter as the domain's find() takes it: vocabulary values as plain strings."""
    given = strawberry.asdict(filter)
    return {**given, "kind": plain_list(filter.kind), "status": plain_list(filter.status),
            "source": plain(filter.source)}


def change_list(result: Any) -> list[StatusChange]:
    """The status changes a knowledge write reports, by item id."""
    changes = sorted(status_changes(result).items())
    return [StatusChange.of(i, before, after) for i, (before, after) in changes]


def _item(read: KnowledgeRead, rec: ItemRecord) -> Item:
    return Item.of(rec.materialise(), read.stale_reasons(rec.id))


def item_node(read: KnowledgeRead, item_id: str) -> Item:
    """The item with this id as `read` has it, as the API shows it (NotFound if there is none)."""
    return _item(read, _record(read, item_id))


def find_item(service: Service, item_id: str) -> Item | None:
    """The item with this id as the graph holds it now, or None."""
    read = knowledge_read(service)
    rec = read.item(item_id)
    return None if rec is None else _item(read, rec)


def _record(read: KnowledgeRead, item_id: str) -> ItemRecord:
    rec = read.item(item_id)
    if rec is None:
        raise NotFound(f"no item {item_id!r} in the store", field="id")
    return rec


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
        _record(read, item_id)
    reached = walk(service.graph, ids, steps, max_depth)
    found = read.items(r.id for r in reached)
    return [WalkStep(id=r.id, depth=r.depth, via=r.via, edge=r.step,
                     item=_item(read, found[r.id]) if r.id in found else None)
            for r in reached]


def _walk_as_of(service: Service, ids: list[str], steps: Any, max_depth: int | None, as_of: int) -> list[WalkStep]:
    """The walk over the edges written by position `as_of`, each item as its history says it was then."""
    check_position(as_of, service.journal.seq)
    _items_as_of(service, _start(ids), as_of)  # NotFound for a start that was not there then
    reached = walk(service.graph, ids, as_of_steps(steps), max_depth, upto=as_of)
    items = _items_as_of(service, [r.id for r in reached], as_of)
    return [WalkStep(id=r.id, depth=r.depth, via=r.via, edge=r.step, item=items[r.id]) for r in reached]


def _items_as_of(service: Service, ids: list[str], as_of: int) -> dict[str, Item]:
    """These items as their histories say they were at position `as_of`, read in one statement;
    NotFound naming the first that was not there then (HistoryMissing if its history does not reach).
    Their staleness then is read only if asked (`stale_as_of`)."""
    histories: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    for row in service.graph.run("items_history_upto", {"ids": ids, "upto": as_of}):
        histories[row["id"]].append(row)
    found = {}
    for item_id, rows in histories.items():
        item = Item.of(node_as_of(rows, as_of, f"item {item_id!r}"), [])
        item.as_of, item.reasons = as_of, None
        found[item_id] = item
    return found


def _found_item(props: dict[str, Any], reasons: list[str], as_of: int | None) -> Item:
    """An item of a read (now, or as of a position `as_of`), with its staleness there (`reasons`)."""
    item = Item.of(props, reasons)
    item.as_of = as_of
    return item


async def _write(info: strawberry.Info[Any, Any], plan: Any) -> Any:
    service = service_of(info)
    # Holding no knowledge state, the plan reads only the graph: a step off the loop, as the round trips are.
    return await journal_write(info, lambda: service.plan_knowledge(plan), plan_off_loop=service.knowledge_in_graph)


async def _status_write(info: strawberry.Info[Any, Any], plan: Any) -> WriteOutcome:
    """A write whose result is the items' status changes."""
    done = await _write(info, plan)
    return WriteOutcome(seq=done.entry.seq, changes=change_list(done.result))


def _items(info: strawberry.Info[Any, Any], ids: list[str], then: ItemsThen | None = None) -> list[Item]:
    # Items are never deleted (a retracted one stays, retracted), so every id a flag or dispute names is found.
    # The query that returned the flag or dispute caught up already: no second round trip per node.
    if then is not None:  # a flag or dispute as of a position names the items as they were then
        return then.items(ids)
    read = knowledge_now(info)
    found = read.items(ids)
    return [_item(read, found[item_id]) for item_id in ids]


class ItemsThen:
    """The items the flags or disputes of one read name, as they were at its position: read for all of
    them in one statement the first time one is asked for (not one statement per flag or dispute)."""

    def __init__(self, service: Service, named: Iterable[str], as_of: int) -> None:
        self.service, self.named, self.as_of = service, sorted(set(named)), as_of
        self._found: dict[str, Item] | None = None

    def items(self, ids: list[str]) -> list[Item]:
        if self._found is None:
            self._found = _items_as_of(self.service, self.named, self.as_of) if self.named else {}
        return [self._found[i] for i in ids]


@strawberry.type(description="A staleness flag: the items it covers are hints, not facts, while it is pending "
                              "and until a newer observation or a person confirms them.")
class Flag(Node):
    id: strawberry.ID = strawberry.field(description="flag-<seq>: the journal position it was raised at.")
    kind: FlagKind = strawberry.field(description="What it was raised over (scope, ids, key or reconfirm).")
    why: str = strawberry.field(description="The reason given when it was raised (its kind if none was).")
    pending: bool = strawberry.field(description="True until endFlag ends it.")
    raised_at: int = strawberry.field(description="The journal position it was raised at.")
    ended_at: int | None = strawberry.field(description="The journal position endFlag ended it at; null while "
                                                        "pending.")
    scope: JSON | None = strawberry.field(description="The scope pattern it was raised over; null unless its kind "
                                                      "is scope.")
    key: str | None = strawberry.field(description="The key it was raised over; null unless its kind is key.")
    covers: list[str] = strawberry.field(description="The ids of the items it covers, sorted (a rollback under it "
                                                     "adds the restored version).")
    then: strawberry.Private[ItemsThen | None] = None  # read as of a position: its items as they were then

    @strawberry.field(description="The items it covers, as `covers` orders them (as they were at the position "
                                  "the flag is read at).")
    def covered_items(self, info: strawberry.Info[Any, Any]) -> list[Item]:
        return _items(info, self.covers, self.then)

    @classmethod
    def of(cls, flag: FlagRecord) -> Flag:
        return cls(id=strawberry.ID(flag.id), kind=FlagKind(flag.kind), why=flag.why, pending=flag.pending,
                   raised_at=flag.seq, ended_at=flag.ended_at, scope=flag.scope, key=flag.key,
                   covers=sorted(flag.covers))


@strawberry.type(description="A dispute on a key: equally ranked items give it different values, so each is "
                              "disputed until a person says which is right (resolveDispute or answerQuestion).")
class Dispute(Node):
    id: strawberry.ID = strawberry.field(description="d-<hash of the key>-<openedAt>; a question's target.")
    question: str = strawberry.field(description="The question a person is asked, formed from the key and values.")
    key: str = strawberry.field(description="The key in dispute, as canonical JSON [scope, subject, relation]; "
                                            "pass it to resolveDispute.")
    values: list[str] = strawberry.field(description="The values in contention, sorted, each as canonical JSON "
                                                     "(a text keeps its quotes: \"blue\").")
    items: list[str] = strawberry.field(description="The ids of the items that give those values, sorted.")
    opened_at: int = strawberry.field(description="The journal position it opened at.")
    open: bool = strawberry.field(description="True until one value stands again (resolved, or the others went).")
    closed_at: int | None = strawberry.field(description="The journal position it closed at; null while open.")
    resolved: str | None = strawberry.field(description="The value a person chose, as canonical JSON; null while "
                                                        "open or when it closed without a person.")
    then: strawberry.Private[ItemsThen | None] = None  # read as of a position: its items as they were then

    @strawberry.field(description="The items that give the values in contention, as `items` orders them (as "
                                  "they were at the position the dispute is read at).")
    def disputed_items(self, info: strawberry.Info[Any, Any]) -> list[Item]:
        return _items(info, self.items, self.then)

    @classmethod
    def of(cls, event: DisputeEvent) -> Dispute:
        return cls(id=strawberry.ID(dispute_id(event)), question=question_text(event), key=event.key,
                   values=list(event.values), items=list(event.items), opened_at=event.opened_at, open=event.open,
                   closed_at=event.closed_at, resolved=event.resolved)


def _items_then(service: Service, page: Connection[Any], as_of: int | None,
                named: Callable[[Any], list[str]]) -> Connection[Any]:
    """A page of flags or disputes read as of a position, each naming its items (`named`) as they were
    then: the page's items read together, when first asked for."""
    if as_of is not None:
        then = ItemsThen(service, [i for edge in page.edges for i in named(edge.node)], as_of)
        for edge in page.edges:
            edge.node.then = then
    return page


def find_flag(service: Service, flag_id: str) -> Flag | None:
    """The flag with this id as the graph holds it now, or None."""
    flag = knowledge_read(service).flag(flag_id)
    return None if flag is None else Flag.of(flag)


def find_dispute(service: Service, node_id: str) -> Dispute | None:
    """The dispute with this id as the graph holds it now, open or closed, or None (a dispute a retraction
    withdrew is gone)."""
    rows = service.graph.run("dispute_by_id", {"id": node_id})
    event = dispute_of_props(rows[0]["dispute"]) if rows else None
    return None if event is None else Dispute.of(event)


@strawberry.type(description="A recorded decision snapshot that reads differently without the retracted items.")
class Redecision:
    snapshot: str = strawberry.field(description="The id of the recorded snapshot (snap-<seq>).")
    old: JSON = strawberry.field(description="The facts the decision was given (s, r, o), as recorded.")
    new: JSON = strawberry.field(description="The facts it would be given without the retracted items.")


@strawberry.type(description="Recorded decisions whose snapshot changes without the retracted items.")
class Redecisions:
    answer_changes: list[Redecision] = strawberry.field(description="The facts given changed: for a reviewer.")
    justification_only: list[Redecision] = strawberry.field(description="Only hints or support changed.")


StartIds = Annotated[list[str], strawberry.argument(description=f"The items to start from (1 to {MAX_WALK_START} "
                                                               "ids).")]
About = Annotated[list[str] | None, strawberry.argument(description="Only items about these subjects (s); null: "
                                                                    "any.")]
Relation = Annotated[str | None, strawberry.argument(description="Only items with this relation (r); null: any.")]
Scope = Annotated[JSON | None, strawberry.argument(description="Only items whose scope falls under this pattern "
                                                               "(an object, matched key by key); null: any.")]
Kinds = Annotated[list[ItemKind] | None, strawberry.argument(description="Only items of these kinds; null: any.")]


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
        return _items_as_of(service, [id], as_of)[id]

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
                _record(read, item_id)
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
        _record(read, id)
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


@strawberry.type
class KnowledgeMutation:
    @strawberry.mutation(description="Propose an item; refused proposals are journalled with why.")
    @user_errors
    async def add_item(self, info: strawberry.Info[Any, Any],
                 item: Annotated[ItemInput, strawberry.argument(description="The proposed item.")]) -> AddOutcome:
        raw = {k: v for k, v in strawberry.asdict(item).items() if v is not None}
        raw.update(kind=plain(item.kind), source=plain(item.source))
        done = await _write(info, lambda k: planning.plan_add(k, raw, by=author_of(info)))
        r = done.result
        return AddOutcome(id=r["id"], status=r["status"], admission=r["admission"], why=r.get("why"),
                          seq=done.entry.seq, changes=change_list(r))

    @strawberry.mutation(description="A held rule, skill or action passed its gates, or a person promotes it.")
    @user_errors
    async def promote_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_promote(k, id, why))

    @strawberry.mutation(description="Take an item back with everything derived from it; returns every change.")
    @user_errors
    async def retract_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_retract(k, id, why))

    @strawberry.mutation(description="Undo an update: the previous version returns (a hint while a flag is pending).")
    @user_errors
    async def rollback_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_rollback(k, id, why))

    @strawberry.mutation(description="The producer no longer stands behind the item: it expires.")
    @user_errors
    async def retire_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_retire(k, id, why))

    @strawberry.mutation(description="Ask for one item's re-confirmation (a flag on it alone).")
    @user_errors
    async def reconfirm_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_reconfirm(k, id, why))
        return WriteOutcome(seq=done.entry.seq, changes=[], id=done.result)

    @strawberry.mutation(description="A drift / open-set flag over a scope pattern, item ids or a key.")
    @user_errors
    async def raise_flag(self, info: strawberry.Info[Any, Any],
                   why: Annotated[str, strawberry.argument(description="Why the items may no longer hold "
                                                                      "(drift, an open set, …).")],
                   scope: Annotated[JSON | None, strawberry.argument(
                       description="Cover the items whose scope falls under this pattern ({} for every item).")
                   ] = None,
                   ids: Annotated[list[str] | None, strawberry.argument(description="Cover these items.")] = None,
                   key: Annotated[str | None, strawberry.argument(
                       description="Cover the items on this key ([scope, s, r] as canonical JSON).")] = None,
                   ) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_flag(k, why=why, scope=scope, ids=ids, key=key))
        return WriteOutcome(seq=done.entry.seq, changes=[], id=done.result)

    @strawberry.mutation(description="End a pending flag: its items are facts again if nothing else holds them.")
    @user_errors
    async def end_flag(self, info: strawberry.Info[Any, Any],
                 flag: Annotated[str, strawberry.argument(description="The pending flag's id (flag-<seq>).")]
                 ) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_end_flag(k, flag))

    @strawberry.mutation(description="A person's answer to the open dispute on a key: this value wins.")
    @user_errors
    async def resolve_dispute(self, info: strawberry.Info[Any, Any],
                        key: Annotated[str, strawberry.argument(description="The key in dispute (a Dispute's key).")],
                        value: Annotated[JSON, strawberry.argument(
                            description="The value that wins: one of those in dispute, as plain JSON (\"blue\", "
                                        "5).")],
                        why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_resolve(k, key, value, why))

    @strawberry.mutation(description="Advance the store clock by k units (reconfirm_after counts it).")
    @user_errors
    async def tick(self, info: strawberry.Info[Any, Any],
             k: Annotated[Long, strawberry.argument(description="How many clock units to advance (not negative).")]
             ) -> WriteOutcome:
        return await _status_write(info, lambda s: planning.plan_tick(s, k))

    @strawberry.mutation(description="Decisions used these items (wrong: and were found wrong).")
    @user_errors
    async def mark_used(self, info: strawberry.Info[Any, Any],
                  ids: Annotated[list[str], strawberry.argument(description="The items a decision used.")],
                  wrong: Annotated[bool, strawberry.argument(
                      description="True: the decision was found wrong (counted in wrongUses too).")] = False,
                  ) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_used(k, ids, wrong))
        return WriteOutcome(seq=done.entry.seq, changes=[])

    @strawberry.mutation(description="Record the snapshot a decision is given (facts, hints, fingerprint, query).")
    @user_errors
    async def take_snapshot(self, info: strawberry.Info[Any, Any], about: About = None, relation: Relation = None,
                      scope: Scope = None, kinds: Kinds = None) -> JSON:
        names = plain_list(kinds)
        done = await _write(info, lambda k: planning.plan_snapshot(k, about, relation, scope, names))
        return {**done.result, "seq": done.entry.seq}
