"""The knowledge store read from the graph for a read (knowledge_region.KnowledgeRead, and the pages of
disputes and flags read_pages reads from the graph) is the whole store's state, on both backends."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from graph_service import key_windows
from graph_service.api.pages import Page, encode_cursor
from graph_service.api.read_pages import (
    ItemPage,
    dispute_page,
    dispute_page_now,
    flag_page,
    flag_page_now,
    item_page,
    item_page_now,
    question_now,
    question_page,
    question_page_now,
    unknown_now,
    unknown_page,
    unknown_page_now,
)
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.partial_reads import NeedMore
from graph_service.questions import plans
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.knowledge_histories import write_knowledge_history


def _pages(kind: str, read: Callable[[int, str | None], Page[Any]], first: int) -> list[list[Any]]:
    """Every page of a paged read, following its cursors to the end: each row with the page's counts."""
    pages: list[list[Any]] = []
    after = None
    while True:
        page = read(first, after)
        pages.append([(position, node, page.earlier, page.total) for position, node in page.rows])
        if not page.more:
            return pages
        after = encode_cursor(kind, page.rows[-1][0])


def _item_pages(read: Callable[[int, str | None], ItemPage], first: int) -> list[ItemPage]:
    """Every page of an items read, following its cursors (the last id of a page) to the end."""
    pages, after = [], None
    while True:
        page = read(first, after)
        pages.append(page)
        if not page.more:
            return pages
        after = page.rows[-1][0]["id"]


def _item_filters(whole: Any) -> list[dict[str, Any]]:
    """Filters of every kind find takes that the API passes, with values the history has, alone and
    together, with some that select nothing; each must select some item and some must leave some out."""
    recs = sorted(whole.items.values(), key=lambda r: r.id)
    fact = next(r for r in recs if r.key is not None)
    scoped = next(r for r in recs if r.scope)
    name, value = sorted(scoped.scope.items())[0]
    ids = [r.id for r in recs]
    filters: list[dict[str, Any]] = [
        {}, {"kind": [fact.kind]}, {"status": sorted({r.status for r in recs})[:2]},
        {"source": fact.props["source"]}, {"by": fact.props["by"]}, {"s": fact.body["s"]},
        {"r": fact.body["r"]}, {"key": fact.key}, {"ids": [*ids[::3][::-1], "k-never-written"]},
        {"stale": True}, {"stale": False}, {"scope": {name: value}}, {"scope": {}},
        {"kind": [fact.kind], "stale": False, "status": ["active", "refuted", "disputed"]},
        {"s": fact.body["s"], "scope": {name: value}}, {"key": "no such key"}, {"by": "nobody"},
    ]
    selected = [len(whole.find(**given)) for given in filters]
    assert any(0 < n < len(ids) for n in selected) and whole.find(stale=True), "filters must tell items apart"
    return filters


@pytest.mark.parametrize("seed", [5, 23])
def test_what_a_read_reads_of_the_knowledge_from_the_graph_is_the_whole_stores_state(
        backend: Backend, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 160, seed)
        whole = service.state.knowledge
        read = KnowledgeRead(service.graph, service.journal.seq)
        ids = sorted(whole.items)
        assert len(ids) > 20 and whole.flags and whole.dispute_events, "the history must have all three"
        found = read.items(ids[: len(ids) // 2])  # several in one statement, the rest one by one
        for item_id in ids:
            rec = found.get(item_id) or read.item(item_id)
            assert rec is not None, item_id
            assert rec.materialise() == whole.items[item_id].materialise(), item_id
            assert read.stale_reasons(item_id) == whole.stale_reasons(item_id), item_id
        assert read.item("k-never-written") is None and read.items(["k-never-written"]) == {}
        for flag_id, flag in whole.flags.items():
            assert read.flag(flag_id) == flag, flag_id
        assert read.flag("flag-0") is None
        for key in {rec.key for rec in whole.items.values()}:
            assert read.disputes_on(key) == tuple(whole.dispute_events.get(key, ())), key
        # The pages of open disputes and of flags, read by their indexes, page by page with the counts; the
        # disputes' by windows of positions, also windows as narrow as one position (so a page takes many).
        head = service.journal.seq
        for first in (1, 3, 50):
            for window in (key_windows.PLACES_FIRST_WINDOW, 1):
                monkeypatch.setattr(key_windows, "PLACES_FIRST_WINDOW", window)
                assert _pages("dispute", lambda n, a: dispute_page_now(service.graph, n, a, head), first) == \
                    _pages("dispute", lambda n, a: dispute_page(whole, n, a), first), (first, window)
                for pending in (None, True, False):
                    assert _pages("flag", lambda n, a, p=pending: flag_page_now(service.graph, p, n, a, head), first) \
                        == _pages("flag", lambda n, a, p=pending: flag_page(whole, p, n, a), first), (first, pending)
            monkeypatch.undo()
        assert whole.open_disputes and any(f.pending for f in whole.flags.values()) \
            and any(not f.pending for f in whole.flags.values()), "the pages must have rows to compare"
        # What a decision would be given about some subjects, with the rest of a query; about every subject
        # it would read every item, and says so.
        subjects = sorted({rec.body["s"] for rec in whole.items.values() if rec.key is not None})
        fact = next(rec for rec in whole.items.values() if rec.key is not None)
        for about in [*subjects, subjects[:3], [*subjects[-2:], "nobody-asked"]]:
            for query in ({}, {"relation": fact.body["r"]}, {"kinds": ["fact"]}, {"scope": fact.scope}):
                assert read.snapshot(about=about, **query) == whole.snapshot(about=about, **query), (about, query)
        with pytest.raises(NeedMore):
            read.snapshot(relation=fact.body["r"])
        # The pages of items a filter selects, by the index on Item.id, the rest of the filter matched on
        # the rows (scope patterns, staleness), page by page with the counts.
        for given in _item_filters(whole):
            for first, windows in ((1, True), (7, False), (7, True), (500, False), (500, True)):
                # By the index on Item.id, or window by window of id keys: the same pages either way.
                assert _item_pages(lambda n, a, g=given, w=windows: item_page_now(
                    service.graph, read, g, n, a, by_key_windows=w), first) == \
                    _item_pages(lambda n, a, g=given: item_page(whole, g, n, a), first), (given, first, windows)
        # A cursor that is no id (a prefix, past every id, before every id) pages as the whole state does.
        for cursor in ("k-8", "k-", "k-fffffffffffffff", "a", "z", ids[len(ids) // 2][:-1]):
            assert item_page_now(service.graph, read, {}, 5, cursor, by_key_windows=True) == \
                item_page(whole, {}, 5, cursor), cursor
        # (Last: these write.) The pages of questions and of unknowns, read by their indexes, and each one
        # by its id: with unknowns declared (affecting items and a decision), asked about, one answered.
        snapshots = sorted(whole.snapshots)
        for n in range(4):
            service.journal.write("ann", lambda n=n: plans.plan_declare(
                service.state, "plant", f"is valve {n} open?", affects=ids[n:n + 2],
                decisions=snapshots[:1] if n == 0 else ()))
        unknown_ids = [u.id for u in service.state.questions.unknowns()]
        for unknown_id in unknown_ids[:2]:
            service.journal.write("ann", lambda u=unknown_id: plans.plan_next_question(service.state, u).draft)
        asked = next(q for q in service.state.questions.questions(answered=False) if q.target in unknown_ids)
        service.journal.write("bob", lambda: plans.plan_answer(service.state, asked.id, by="bob", value="yes"))
        questions = service.state.questions
        assert questions.unknowns(answered=True) and questions.unknowns(answered=False), "unknowns to compare"
        head = service.journal.seq
        for first, window in itertools.product((1, 3, 50), (key_windows.PLACES_FIRST_WINDOW, 1)):
            monkeypatch.setattr(key_windows, "PLACES_FIRST_WINDOW", window)
            for answered in (None, True, False):
                assert _pages("question", lambda n, a, w=answered: question_page_now(
                    service.graph, w, n, a, head), first) == \
                    _pages("question", lambda n, a, w=answered: question_page(questions, w, n, a), first), window
                assert _pages("unknown", lambda n, a, w=answered: unknown_page_now(
                    service.graph, w, n, a, head), first) == \
                    _pages("unknown", lambda n, a, w=answered: unknown_page(questions, w, n, a), first), window
        monkeypatch.undo()
        for question in questions.questions():
            assert question_now(service.graph, question.id) == question
        for unknown in questions.unknowns():
            assert unknown_now(service.graph, unknown.id) == unknown
        assert question_now(service.graph, "x#q1") is None and unknown_now(service.graph, "u-never") is None
        assert questions.questions(answered=True) and questions.questions(answered=False), "questions to compare"
    finally:
        service.close()
