"""The knowledge store read from the graph for a read (knowledge_region.KnowledgeRead, and the pages of
disputes and flags read_pages reads from the graph) is the whole store's state, on both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graph_service.api.pages import Page, encode_cursor
from graph_service.api.read_pages import dispute_page, dispute_page_now, flag_page, flag_page_now
from graph_service.knowledge_region import KnowledgeRead
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


@pytest.mark.parametrize("seed", [5, 23])
def test_what_a_read_reads_of_the_knowledge_from_the_graph_is_the_whole_stores_state(
        backend: Backend, seed: int) -> None:
    service = Service.open(backend.settings())
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
        # The pages of open disputes and of flags, read by their indexes, page by page with the counts.
        for first in (1, 3, 50):
            assert _pages("dispute", lambda n, a: dispute_page_now(service.graph, n, a), first) == \
                _pages("dispute", lambda n, a: dispute_page(whole, n, a), first), first
            for pending in (None, True, False):
                assert _pages("flag", lambda n, a, p=pending: flag_page_now(service.graph, p, n, a), first) == \
                    _pages("flag", lambda n, a, p=pending: flag_page(whole, p, n, a), first), (first, pending)
        assert whole.open_disputes and any(f.pending for f in whole.flags.values()) \
            and any(not f.pending for f in whole.flags.values()), "the pages must have rows to compare"
    finally:
        service.close()
