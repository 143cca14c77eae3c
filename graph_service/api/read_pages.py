"""The pages the list reads cut (disputes, flags, questions, unknowns, items), from a knowledge or
question state now or as of a position, with the records as plain JSON and back.

One definition of each read's order, filter and cursor, used on the event loop for now and by
graph_service.jobs.apart's as-of jobs in a process of their own (which fold the graph's history first); the
resolvers build their GraphQL types from the page's records on the loop. Nothing here imports strawberry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from graph_service.api.pages import Counted, Page, ShowsCounts, decode_cursor, page_of, page_size
from graph_service.key_windows import PAST_EVERY_KEY, key_windows, rows_by_place
from graph_service.knowledge.as_of import dispute_of_props, flag_of_props
from graph_service.knowledge.items import ID_KEY_SPAN, id_key, scope_matches
from graph_service.knowledge.records import FlagRecord, ItemRecord
from graph_service.knowledge.rules import DisputeEvent
from graph_service.knowledge.state import KnowledgeState
from graph_service.questions.as_of import question_record, unknown_record
from graph_service.questions.state import QuestionRecord, QuestionState, UnknownRecord
from graph_service.storage.port import GraphPort

T = TypeVar("T")

if TYPE_CHECKING:
    from graph_service.from_graph.knowledge_region import KnowledgeRead


def dispute_page(knowledge: KnowledgeState, first: int | None, after: str | None) -> Page[DisputeEvent]:
    """The page of open disputes, oldest first (then by key), after the cursor `after`."""
    events = sorted(knowledge.open_disputes.values(), key=lambda e: (e.opened_at, e.key))
    # A dispute's place is the journal position it opened at: a later read keeps it even when disputes
    # before it close or a retraction reopens an older one. Unique, as one entry asserts or resolves on
    # at most one key, and a key's disputes open one after another.
    return page_of("dispute", [(e.opened_at, e) for e in events], first, after)


def flag_page(knowledge: KnowledgeState, pending: bool | None, first: int | None,
              after: str | None) -> Page[FlagRecord]:
    """The page of flags in the order raised, only the pending (true) or ended (false) ones if asked;
    a flag's place is the position it was raised at."""
    every = sorted(knowledge.flags.values(), key=lambda f: f.seq)
    return page_of("flag", [(f.seq, f) for f in every if pending is None or f.pending == pending], first, after)


def _indexed_page(graph: GraphPort, kind: str, query: str, params: dict[str, Any], first: int | None,
                  after: str | None, records: Callable[[list[dict[str, Any]]], list[tuple[int, T]]],
                  head: int, place: Callable[[dict[str, Any]], int]) -> Page[T]:
    """The page after the cursor `after` that the named page query `query` reads by an index on each
    row's place (size+1 rows, so `more` needs no other read); `records` makes the (place, record) rows of its
    rows, and `place` gives a row's. `query` reads a window of places [from_key, to_key), and the page is read
    window by window from the cursor on, up to `head` (the last position a place can be) and past it
    (key_windows.rows_by_place). Its counts are read only when asked (pages.Counted): `total` by `query`'s
    _count partner, which reads every row it counts, and `earlier` by its _before partner, which stops at the
    first row it finds."""
    size, start = page_size(first), decode_cursor(kind, after)
    # A page stops at size+1 rows, so a window is never read on past its limit (places may tie: disputes).
    rows = list(islice(rows_by_place(graph, query, params, after=start, head=head, limit=size + 1, place=place),
                       size + 1))
    found = records(rows)
    return Page(rows=found[:size], more=len(found) > size,
                counted=counted_by(graph, query.removesuffix("_page"), params, start))


def counted_by(graph: GraphPort, stem: str, params: dict[str, Any], start: Any) -> Counted:
    """A page's counts, read only when asked: `total` by the query `stem`_count over the filter `params`, and
    `earlier` by `stem`_before, whether a match sorts at or before the cursor `start` (none before an empty
    cursor, so no read)."""
    return Counted(lambda: graph.run(stem + "_count", params)[0]["total"],
                   (lambda: graph.run(stem + "_before", {**params, "after": start})[0]["earlier"]) if start else False)


def dispute_page_now(graph: GraphPort, first: int | None, after: str | None, head: int) -> Page[DisputeEvent]:
    """`dispute_page` of the store as the graph holds it now, read from its Dispute nodes: the page window by
    window of the positions they opened at, up to `head` (the journal's), by the index on that position."""
    return _indexed_page(graph, "dispute", "open_disputes_page", {}, first, after, lambda rows: [
        (event.opened_at, event) for r in rows if (event := dispute_of_props(r["dispute"])) is not None], head,
        lambda row: row["dispute"]["opened_at"])


def flag_page_now(graph: GraphPort, pending: bool | None, first: int | None, after: str | None,
                  head: int) -> Page[FlagRecord]:
    """`flag_page` of the store as the graph holds it now, read from its Flag nodes and their COVERS edges:
    the page window by window of the positions they were raised at, up to `head` (the journal's), by the index
    on that position, and the counts."""
    return _indexed_page(graph, "flag", "flags_page", {"pending": pending}, first, after, lambda rows: [
        (flag.seq, flag) for flag in (flag_of_props(r["flag"], set(r["covers"])) for r in rows)], head,
        lambda row: row["flag"]["raised_at"])


def question_page(questions: QuestionState, answered: bool | None, first: int | None,
                  after: str | None) -> Page[QuestionRecord]:
    """The page of questions in the order asked, only the (un)answered ones if asked; a question's place
    is the position it was asked at (an entry asks one), as the graph's index keeps it."""
    every = questions.questions(answered=answered)
    return page_of("question", [(q.asked_at, q) for q in every], first, after)


def unknown_page(questions: QuestionState, answered: bool | None, first: int | None,
                 after: str | None) -> Page[UnknownRecord]:
    """The page of declared unknowns in the order declared, only the (un)answered ones if asked; an
    unknown's place is the position it was declared at (an entry declares one)."""
    every = questions.unknowns(answered=answered)
    return page_of("unknown", [(u.declared_at, u) for u in every], first, after)


def question_page_now(graph: GraphPort, answered: bool | None, first: int | None,
                      after: str | None, head: int) -> Page[QuestionRecord]:
    """`question_page` of the store as the graph holds it now, read from its Question nodes: the page window by
    window of the positions they were asked at, up to `head` (the journal's), by the index on that position,
    and the counts."""
    return _indexed_page(graph, "question", "questions_page", {"answered": answered}, first, after, lambda rows: [
        (q.asked_at, q) for q in (question_record(r["question"]["id"], r["question"]) for r in rows)], head,
        question_place)


def unknown_page_now(graph: GraphPort, answered: bool | None, first: int | None,
                     after: str | None, head: int) -> Page[UnknownRecord]:
    """`unknown_page` of the store as the graph holds it now, read from its Unknown nodes and their AFFECTS
    edges: the page window by window of the positions they were declared at, up to `head` (the journal's), by
    the index on that position, and the counts."""
    return _indexed_page(graph, "unknown", "unknowns_page", {"answered": answered}, first, after, lambda rows: [
        (u.declared_at, u) for u in (unknown_record(r["unknown"]["id"], r["unknown"], r["items"], r["decisions"])
                                     for r in rows)], head, unknown_place)


def question_place(row: dict[str, Any]) -> int:
    """A questions_page row's place: the position its question was asked at."""
    return int(row["question"]["asked_at"])


def unknown_place(row: dict[str, Any]) -> int:
    """An unknowns_page row's place: the position its unknown was declared at."""
    return int(row["unknown"]["declared_at"])


def question_now(graph: GraphPort, question_id: str) -> QuestionRecord | None:
    """The question with this id as the graph holds it now; None for one never asked."""
    rows = graph.run("question_by_id", {"id": question_id})
    return question_record(question_id, rows[0]["question"]) if rows else None


def unknown_now(graph: GraphPort, unknown_id: str) -> UnknownRecord | None:
    """The declared unknown with this id as the graph holds it now; None for one never declared."""
    rows = graph.run("unknown_by_id", {"id": unknown_id})
    return unknown_record(unknown_id, rows[0]["unknown"], rows[0]["items"], rows[0]["decisions"]) if rows else None


@dataclass(frozen=True)
class ItemPage(ShowsCounts):
    """A page of `items`: each row an item's properties (KnowledgeState.find) and its stale reasons, by id;
    whether items follow (`more`); `counted`: whether matching items precede it (`earlier`) and how many
    match (`total`)."""

    rows: list[tuple[dict[str, Any], list[str]]]
    more: bool
    counted: Counted

    def as_json(self) -> dict[str, Any]:
        """The page as plain JSON (what an apart job hands back)."""
        return {"rows": [[props, reasons] for props, reasons in self.rows], "more": self.more,
                "earlier": self.earlier, "total": self.total}

    @staticmethod
    def from_json(answer: dict[str, Any]) -> ItemPage:
        """The page `as_json` gave."""
        return ItemPage([(props, list(reasons)) for props, reasons in answer["rows"]], bool(answer["more"]),
                        Counted(int(answer["total"]), bool(answer["earlier"])))


def item_page(knowledge: KnowledgeState, given: dict[str, Any], size: int, after: str | None) -> ItemPage:
    """The page of at most `size` items matching the filter `given` (KnowledgeState.find), by id, whose
    ids sort after `after` (an id), each with its staleness in `knowledge`."""
    every_found = sorted(knowledge.find(**given), key=lambda r: r["id"])  # find gives named ids as named
    found = [r for r in every_found if after is None or r["id"] > after]
    every = len(every_found)
    return ItemPage(rows=[(r, knowledge.stale_reasons(r["id"])) for r in found[:size]], more=len(found) > size,
                    counted=Counted(every, every > len(found)))


# The filters items_page and items_count apply in the graph, by parameter; find's other filters (scope
# patterns, staleness, a fact's object) are applied to the rows here.
_GRAPH_FILTERS = {"ids": "ids", "key": "key", "s": "s", "r": "r", "kind": "kinds", "status": "statuses",
                  "source": "source", "by": "by"}
# Rows read per statement when filters the graph cannot apply leave an unknown share of them.
_FILTERED_BATCH = 500


def item_page_now(graph: GraphPort, read: KnowledgeRead, given: dict[str, Any], size: int,
                  after: str | None, *, by_key_windows: bool = False) -> ItemPage:
    """`item_page` of the store as the graph holds it now: the filter's node properties matched by the
    graph (items_page, items_count: the page in the order of the index on Item.id), the rows' records and
    staleness read through `read`. A filter on scope, staleness or a fact's object is matched on every
    item the graph's part of the filter selects, so it costs what that part selects. `by_key_windows` (a
    store whose items keep their id key): a page without those, or ids, is read window by window of id
    keys (`item_ids_by_key_windows`), so it sorts what its windows hold, not every item it selects."""
    params: dict[str, Any] = {}
    for name, param in _GRAPH_FILTERS.items():
        value = given.get(name)
        listed = name in ("ids", "kind", "status")
        params[param] = (list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]) \
            if listed and value is not None else value
    rest = {name: given[name] for name in ("scope", "stale", "o") if given.get(name) is not None}
    start = after or ""
    if not rest:
        start_key = id_key(start) if start else 0
        if by_key_windows and params["ids"] is None and start_key is not None:
            ids = item_ids_by_key_windows(graph, {k: v for k, v in params.items() if k != "ids"}, start, start_key,
                                          size + 1)
        else:
            ids = [r["id"] for r in graph.run("items_page", {**params, "after": start, "limit": size + 1})]
        return ItemPage(rows=_rows(read, ids[:size]), more=len(ids) > size,
                        counted=counted_by(graph, "items", params, start))
    total = before = 0
    found: list[tuple[dict[str, Any], list[str]]] = []
    cursor = ""
    while True:  # every item the graph's part selects: the total is theirs
        ids = [r["id"] for r in graph.run("items_page", {**params, "after": cursor, "limit": _FILTERED_BATCH})]
        if not ids:
            break
        cursor = ids[-1]
        records = read.records(ids)
        for props, stale in _rows(read, ids, records):
            if not _matches_rest(records[props["id"]], stale, rest):
                continue
            total += 1
            if props["id"] <= start:
                before += 1
            elif len(found) <= size:
                found.append((props, stale))
    return ItemPage(rows=found[:size], more=len(found) > size, counted=Counted(total, before > 0))


def item_ids_by_key_windows(graph: GraphPort, params: dict[str, Any], after: str, start_key: int,
                            limit: int) -> list[str]:
    """At most `limit` ids of the items the filter `params` selects (items_page's, without ids) after `after`,
    by id: what items_page gives, read window by window of id keys from `start_key` (the key of `after`) on
    (items_page_by_key_window, by the index on Item.id_key; `key_windows`). The windows are contiguous and
    the key keeps the ids' order, so the windows' pages, one after another, are in id order."""
    ids: list[str] = []
    for low, high in key_windows(start_key, descending=False, span=(0, ID_KEY_SPAN), ends=(0, ID_KEY_SPAN),
                                 first=_ID_KEY_FIRST_WINDOW):
        ids += [r["id"] for r in graph.run("items_page_by_key_window", {
            **params, "after": after, "from_key": low, "to_key": high, "limit": limit - len(ids)})]
        if len(ids) >= limit:
            break
    return ids


# A first window of 1/65536 of the id keys holds about 15 items at 10^6 and 1.5 at 10^5: a page of 20 is
# read in two to five widening windows, each sorting at most a few pages' worth.
_ID_KEY_FIRST_WINDOW = ID_KEY_SPAN >> 16


def _rows(read: KnowledgeRead, ids: list[str],
          records: dict[str, ItemRecord] | None = None) -> list[tuple[dict[str, Any], list[str]]]:
    """Each item's properties (as KnowledgeState.find gives them) and stale reasons as of `read`, the
    items read in one statement (`records`: the caller's, already read)."""
    records = read.records(ids) if records is None else records
    return [(records[i].materialise(), read.stale_reasons(i)) for i in ids]


def _matches_rest(rec: ItemRecord, stale: list[str], rest: dict[str, Any]) -> bool:
    """Whether an item matches the filters the graph leaves (KnowledgeState.find's meaning of each)."""
    if "scope" in rest and not scope_matches(rec.scope, rest["scope"]):
        return False
    if "stale" in rest and bool(stale) != bool(rest["stale"]):
        return False
    return "o" not in rest or rec.body.get("o") == rest["o"]


# Confidence keys (1e-9): confidences are clamped to [0.02, 0.98], so keys lie in [0, 10**9]; the
# outermost windows reach past both ends so that no key, however it came, is left out.
_CONFIDENCE_SPAN = (0, 10**9 + 1)


def belief_page_now(graph: GraphPort, filters: dict[str, Any], *, descending: bool, after_key: int | None,
                    after_id: str | None, limit: int) -> list[dict[str, Any]]:
    """At most `limit` rows (belief, key) of the beliefs the filter selects, by confidence key either way
    and ties by id, after the keyset cursor (after_key, after_id): what one statement over every belief
    would give (beliefs.as_of.belief_page), read window by window of keys from the cursor on
    (belief_page_confidence_desc/_asc, by the index on Belief.confidence; `key_windows`)."""
    query = f"belief_page_confidence_{'desc' if descending else 'asc'}"
    if after_id is None:
        start = PAST_EVERY_KEY[1 if descending else 0]
    else:
        assert after_key is not None, "a cursor names a key and an id"
        start = int(after_key) + 1 if descending else int(after_key)  # the cursor's key: its ties after it
    rows: list[dict[str, Any]] = []
    for low, high in key_windows(start, descending=descending, span=_CONFIDENCE_SPAN, ends=PAST_EVERY_KEY):
        rows += graph.run(query, {**filters, "after_key": after_key, "after_id": after_id, "from_key": low,
                                  "to_key": high, "limit": limit - len(rows)})
        if len(rows) >= limit:
            break
    return rows


def record_json(record: FlagRecord | DisputeEvent | QuestionRecord | UnknownRecord) -> dict[str, Any]:
    """A flag's, dispute's, question's or unknown's fields as plain JSON (a set as a sorted list)."""
    return {name: sorted(value) if isinstance(value, set) else value
            for name, value in dataclasses.asdict(record).items()}


def flag_of(row: dict[str, Any]) -> FlagRecord:
    """The flag `record_json` gave."""
    return FlagRecord(**{**row, "covers": set(row["covers"])})


def dispute_of(row: dict[str, Any]) -> DisputeEvent:
    """The dispute `record_json` gave."""
    return DisputeEvent(**{**row, "values": tuple(row["values"]), "items": tuple(row["items"])})


def question_of(row: dict[str, Any]) -> QuestionRecord:
    """The question `record_json` gave."""
    return QuestionRecord(**row)


def unknown_of(row: dict[str, Any]) -> UnknownRecord:
    """The unknown `record_json` gave."""
    return UnknownRecord(**{**row, "affects": tuple(row["affects"]), "decisions": tuple(row["decisions"])})
