"""Relay connections with totalCount for the lists that grow (issue 13 part 4): paging to the end visits
every node once, and totalCount, the same on every page, equals the number of edges seen."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.neo4j_adapter import Neo4jGraph
from tests.integration.graphql_client import data, gql

PAGE = "edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount"
LISTS = {
    "items": "query($a: String) { items(first: 2, after: $a) { %s } }",
    "beliefs": "query($a: String) { beliefs(first: 2, after: $a) { %s } }",
    "journal": "query($a: String) { journal(first: 2, after: $a) { %s } }",
    "questions": "query($a: String) { questions(first: 2, after: $a) { %s } }",
    "unknowns": "query($a: String) { unknowns(first: 2, after: $a) { %s } }",
    "flags": "query($a: String) { flags(first: 2, after: $a) { %s } }",
    "disputes": "query($a: String) { disputes(first: 2, after: $a) { %s } }",
}



def fill(client: TestClient) -> None:
    """Five of each: items, beliefs, unknowns and the questions asked about them, flags, disputes (and their
    entries)."""
    for n in range(5):
        data(client, "mutation($o: String!) { addItem(item: {kind: fact, body: {s: \"pump\", r: \"part\", o: $o}, "
                     "source: person}) { id } }", {"o": f"part-{n}"})
        data(client, "mutation($p: String!) { createBelief(proposition: $p) { seq } }", {"p": f"pump {n} wears"})
        data(client, "mutation($t: String!, $u: String!) { nextQuestion(preferred: $u, declare: "
                     "{situation: \"repair\", text: $t, id: $u}) { id } }", {"t": f"Which bolt {n}?", "u": f"bolt-{n}"})
    for n in range(5):
        for colour in ("blue", "red"):  # equal ranks on one key: a dispute
            data(client, "mutation($s: String!, $o: String!) { addItem(item: {kind: fact, body: {s: $s, "
                         "r: \"colour\", o: $o}, source: person}) { id } }", {"s": f"door-{n}", "o": colour})
        data(client, "mutation($k: String!) { raiseFlag(why: \"repainted?\", key: $k) { id } }",
             {"k": f'[{{}},"door-{n}","colour"]'})


def walk(client: TestClient, name: str) -> tuple[list[str], set[int]]:
    seen: list[str] = []
    totals: set[int] = set()
    after = None
    while True:
        page = data(client, LISTS[name] % PAGE, {"a": after})[name]
        assert page["pageInfo"]["hasPreviousPage"] is (after is not None)
        seen += [e["node"]["id"] for e in page["edges"]]
        totals.add(page["totalCount"])
        if not page["pageInfo"]["hasNextPage"]:
            return seen, totals
        assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        after = page["pageInfo"]["endCursor"]


@pytest.mark.parametrize("name", list(LISTS))
def test_paging_to_the_end_sees_total_count_nodes_once(client: TestClient, name: str) -> None:
    fill(client)
    seen, totals = walk(client, name)
    assert len(seen) == len(set(seen)) and totals == {len(seen)} and len(seen) >= 5


def test_a_filter_counts_its_matches_and_pages_by_them(client: TestClient) -> None:
    fill(client)
    asked = data(client, "{ questions(first: 1) { edges { node { id } } } }")["questions"]["edges"][0]["node"]["id"]
    data(client, "mutation($q: String!) { answerQuestion(question: $q, value: \"m8\") { seq } }", {"q": asked})
    shown = data(client, "{ a: questions(answered: true) { totalCount } b: questions(answered: false) { totalCount "
                         "edges { node { id answered } } } c: unknowns(answered: false, first: 1) { totalCount "
                         "pageInfo { hasNextPage } } }")
    assert shown["a"]["totalCount"] == 1 and shown["b"]["totalCount"] == 4
    assert all(not e["node"]["answered"] and e["node"]["id"] != asked for e in shown["b"]["edges"])
    assert shown["c"] == {"totalCount": 4, "pageInfo": {"hasNextPage": True}}


@pytest.mark.parametrize("name", ["questions", "unknowns", "flags", "disputes"])
def test_a_cursor_of_another_list_is_a_clear_error(client: TestClient, name: str) -> None:
    fill(client)
    other = data(client, "{ journal(first: 1) { pageInfo { endCursor } } }")["journal"]["pageInfo"]["endCursor"]
    (error,) = gql(client, LISTS[name] % "totalCount", {"a": other})["errors"]
    assert "cursor" in error["message"] and error["extensions"] == {"code": "BAD_USER_INPUT", "field": "after"}


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the statements every graph runs from here on, in order."""
    ran: list[str] = []
    for adapter in (FalkorDBGraph, Neo4jGraph):
        def recording(self: Any, name: str, params: Any = None, _run: Any = adapter.run) -> Any:
            ran.append(name)
            return _run(self, name, params)
        monkeypatch.setattr(adapter, "run", recording)
    return ran


COUNTED = ["items", "beliefs", "questions", "unknowns", "flags", "disputes"]


@pytest.mark.parametrize("name", COUNTED)
def test_a_page_counts_only_when_it_shows_a_count(client: TestClient, statements: list[str], name: str) -> None:
    # A count reads every match, so a page that does not show totalCount or hasPreviousPage must not pay one.
    fill(client)
    first = data(client, LISTS[name] % "edges { cursor } pageInfo { hasNextPage endCursor }", {"a": None})[name]
    after = first["pageInfo"]["endCursor"]
    del statements[:]
    data(client, LISTS[name] % "edges { cursor } pageInfo { hasNextPage endCursor }", {"a": after})
    assert not [s for s in statements if s.endswith(("_count", "_before"))], statements
    counted = data(client, LISTS[name] % "totalCount pageInfo { hasPreviousPage }", {"a": after})[name]
    assert counted["totalCount"] >= 5 and counted["pageInfo"]["hasPreviousPage"] is True
    assert [s for s in statements if s.endswith("_count")], statements


def test_previous_page_means_a_match_before_it_not_any_node(client: TestClient) -> None:
    # The first answered question was asked after two open ones: a page of answered questions after the
    # second open one's cursor has no answered question before it, though questions precede it.
    fill(client)
    edges = data(client, "{ questions(first: 3) { edges { cursor node { id } } } }")["questions"]["edges"]
    data(client, "mutation($q: String!) { answerQuestion(question: $q, value: \"m8\") { seq } }",
         {"q": edges[2]["node"]["id"]})
    query = "query($a: String) { questions(answered: %s, after: $a) { edges { node { id } } pageInfo { " \
            "hasPreviousPage } } }"
    answered = data(client, query % "true", {"a": edges[1]["cursor"]})["questions"]
    assert [e["node"]["id"] for e in answered["edges"]] == [edges[2]["node"]["id"]]
    assert answered["pageInfo"]["hasPreviousPage"] is False
    still_open = data(client, query % "false", {"a": edges[1]["cursor"]})["questions"]
    assert still_open["pageInfo"]["hasPreviousPage"] is True
