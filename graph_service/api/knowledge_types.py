"""GraphQL types of the knowledge store: items, walks, disputes, flags, snapshots (queries: knowledge_query; writes:
knowledge_mutations)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.context import knowledge_now, knowledge_read, service_of
from graph_service.api.journal_types import PageInfo
from graph_service.api.knowledge_as_of import (
    stale_as_of,
)
from graph_service.api.node import Node
from graph_service.api.pages import Counted
from graph_service.api.scalars import Long
from graph_service.api.vocabularies import FlagKind, ItemKind, ItemSource, ItemStatus
from graph_service.errors import NotFound
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.history import node_as_of
from graph_service.knowledge.as_of import dispute_of_props
from graph_service.knowledge.records import FlagRecord, ItemRecord, dispute_id, question_text
from graph_service.knowledge.rules import DisputeEvent
from graph_service.service import Service
from graph_service.state import StoreState, status_changes

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


def change_list(result: Any) -> list[StatusChange]:
    """The status changes a knowledge write reports, by item id."""
    changes = sorted(status_changes(result).items())
    return [StatusChange.of(i, before, after) for i, (before, after) in changes]


def item_of(read: KnowledgeRead, rec: ItemRecord) -> Item:
    return Item.of(rec.materialise(), read.stale_reasons(rec.id))


def item_node(read: KnowledgeRead, item_id: str) -> Item:
    """The item with this id as `read` has it, as the API shows it (NotFound if there is none)."""
    return item_of(read, item_record(read, item_id))


def find_item(service: Service, item_id: str) -> Item | None:
    """The item with this id as the graph holds it now, or None."""
    read = knowledge_read(service)
    rec = read.item(item_id)
    return None if rec is None else item_of(read, rec)


def item_record(read: KnowledgeRead, item_id: str) -> ItemRecord:
    rec = read.item(item_id)
    if rec is None:
        raise NotFound(f"no item {item_id!r} in the store", field="id")
    return rec


def items_at(service: Service, ids: list[str], as_of: int) -> dict[str, Item]:
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


def _items(info: strawberry.Info[Any, Any], ids: list[str], then: ItemsThen | None = None) -> list[Item]:
    # Items are never deleted (a retracted one stays, retracted), so every id a flag or dispute names is found.
    # The query that returned the flag or dispute caught up already: no second round trip per node.
    if then is not None:  # a flag or dispute as of a position names the items as they were then
        return then.items(ids)
    read = knowledge_now(info)
    found = read.items(ids)
    return [item_of(read, found[item_id]) for item_id in ids]


class ItemsThen:
    """The items the flags or disputes of one read name, as they were at its position: read for all of
    them in one statement the first time one is asked for (not one statement per flag or dispute)."""

    def __init__(self, service: Service, named: Iterable[str], as_of: int) -> None:
        self.service, self.named, self.as_of = service, sorted(set(named)), as_of
        self._found: dict[str, Item] | None = None

    def items(self, ids: list[str]) -> list[Item]:
        if self._found is None:
            self._found = items_at(self.service, self.named, self.as_of) if self.named else {}
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
