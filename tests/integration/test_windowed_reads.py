"""Reads of a page that cost what the page holds on FalkorDB, whose index range is read whole and sorted before
a LIMIT: a statement asking for "the first n past this place" sorts every row past it. Each page read here asks
for a window of places instead, and the server's own profile shows how many rows its index scan produced."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal
from graph_service.storage import queries
from graph_service.storage.falkordb_adapter import FalkorDBGraph


def index_rows_produced(graph: FalkorDBGraph, name: str, params: dict[str, Any]) -> list[int]:
    """The rows each index scan of the named statement produced when FalkorDB ran it with `params`
    (GRAPH.PROFILE runs the statement)."""
    client, graph_name = graph._graph.client, graph._graph._name  # type: ignore[attr-defined]
    header = " ".join(f"{key}={_literal(value)}" for key, value in params.items())
    plan = [line.decode() if isinstance(line, bytes) else line
            for line in client.execute_command("GRAPH.PROFILE", graph_name, f"CYPHER {header} {queries.load(name)}")]
    produced = [int(found.group(1)) for line in plan if "Index Scan" in line
                if (found := re.search(r"Records produced: (\d+)", line))]
    assert produced, plan  # the statement is read by an index at all
    return produced


def _literal(value: Any) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)


@pytest.fixture
def embedded(tmp_path: Path) -> Any:
    graph = FalkorDBGraph.embedded(tmp_path / "data")
    try:
        graph.setup_schema()  # the indexes the service reads by
        yield graph
    finally:
        graph.close()


def test_a_page_of_the_journal_reads_only_its_positions(embedded: FalkorDBGraph) -> None:
    """A journal page, an entry by position, each page of verify: the first n entries past a position were
    read as every entry past it, sorted. Read as a window of positions, wherever the page starts."""
    journal = Journal(embedded, [NoteDomain()]).open()
    journal.write_batch("ann", (lambda i=i: plan_note(f"n{i}") for i in range(600)))
    assert [e.seq for e in journal.entries_after(100, 10)] == list(range(101, 111))
    for after in (0, 100, 590):
        assert max(index_rows_produced(embedded, "entries_window", {"after": after, "limit": 10})) <= 10
    # What a page asked for as "the first 10 past position 0" read before: every entry.
    assert max(index_rows_produced(embedded, "entries_page", {"after": 0, "limit": 10})) == 600


@pytest.mark.parametrize(("page", "label", "place", "flag"), [
    ("questions_page", "Question", "asked_at", "answered"),
    ("unknowns_page", "Unknown", "declared_at", None),
    ("flags_page", "Flag", "raised_at", "pending"),
    ("open_disputes_page", "Dispute", "opened_at", None),
])
def test_a_page_of_places_reads_only_its_window(embedded: FalkorDBGraph, page: str, label: str, place: str,
                                                 flag: str | None) -> None:
    """Questions, unknowns, flags and open disputes are paged by the position each came at (its place): a
    page's statement reads a window of places, so its index scan produces the rows of that window, not every
    row past the cursor, whatever else the page filters on."""
    embedded._graph.query(  # type: ignore[attr-defined]
        f"UNWIND range(1, 500) AS n CREATE (:{label} {{id: 'x' + toString(n), {place}: n, answered: n % 2 = 0, "
        "pending: n % 2 = 0, status: 'open', open: true, key: 'k'})")
    asked = {"answered": None} if page in ("questions_page", "unknowns_page") else \
        {"pending": None} if page == "flags_page" else {}
    for extra in ({}, {flag: True} if flag else {}):
        params = {**asked, **extra, "from_key": 200, "to_key": 220, "limit": 100}
        assert max(index_rows_produced(embedded, page, params)) <= 20, (page, params)


def test_a_nodes_history_up_to_a_position_reads_the_nodes_writes(embedded: FalkorDBGraph) -> None:
    """`node_history_upto` (what `changes` and an observation as of a position fold) starts at the node and
    reads its writes: not every entry up to the position by the index on Entry.seq, which FalkorDB chose for
    a filter on it given the chance."""
    embedded._graph.query(  # type: ignore[attr-defined]
        "CREATE (i:Item {id: 'i'}) WITH i UNWIND range(1, 600) AS n CREATE (e:Entry {seq: n}) "
        "FOREACH (_ IN CASE WHEN n % 20 = 0 THEN [1] ELSE [] END | CREATE (e)-[:WROTE {changes: '{}'}]->(i))")
    rows = embedded.run("node_history_upto", {"id": "i", "upto": 500})
    assert sorted(r["seq"] for r in rows) == list(range(20, 501, 20))
    assert max(index_rows_produced(embedded, "node_history_upto", {"id": "i", "upto": 500})) <= 1
