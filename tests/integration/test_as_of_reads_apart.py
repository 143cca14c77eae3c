"""The as-of list reads whose cost grows with the store run in a process of their own (graph_service.jobs.apart),
on every backend: disputes, flags, questions, unknowns, items (a filter naming no ids) and beliefs as of
a position ask their job, and each job's page is the page the in-process fold of the graph's history
gives; as of the head they answer what the present reads answer; a refusal in the child (a cursor of
another list, a page size out of range) comes back as the GraphQL error the present read gives, with
its field. items(asOf) naming its ids reads only those, on the loop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api import belief_query, knowledge_query, question_types
from graph_service.api.app import create_app
from graph_service.api.knowledge_as_of import knowledge_from_history, questions_from_history
from graph_service.api.pages import encode_cursor
from graph_service.api.read_pages import (
    dispute_page,
    flag_page,
    item_page,
    question_page,
    record_json,
    unknown_page,
)
from graph_service.beliefs.as_of import belief_page, beliefs_then
from graph_service.jobs import apart
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.knowledge.records import dispute_id
from graph_service.questions import plans
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.graphql_client import gql
from tests.integration.knowledge_histories import write_knowledge_history

READS = {
    "disputes": """query($n: Long, $first: Int, $after: String) { disputes(first: $first, after: $after, asOf: $n) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id key values items openedAt open closedAt resolved question
                            disputedItems { id status } } } } }""",
    "flags": """query($n: Long, $first: Int, $after: String) { flags(pending: true, first: $first, after: $after,
                                                                     asOf: $n) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id kind why pending raisedAt endedAt key scope covers coveredItems { id status } } } } }""",
    "questions": """query($n: Long, $first: Int, $after: String) { questions(first: $first, after: $after, asOf: $n) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id target targetKind subject parent text path preferred rejected askedAt askedBy
                            answered answer answeredAt answeredBy } } } }""",
    "unknowns": """query($n: Long, $first: Int, $after: String) { unknowns(answered: false, first: $first,
                                                                          after: $after, asOf: $n) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id situation factor text parent affects decisions declaredAt answered } } } }""",
    "items": """query($n: Long, $first: Int, $after: String) { items(filter: {kind: [fact]}, first: $first,
                                                                      after: $after, asOf: $n) {
      totalCount hasNextPage endCursor pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id status why support stale staleReasons } } } }""",
    "beliefs": """query($n: Long, $first: Int, $after: String) { beliefs(first: $first, after: $after, asOf: $n) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id status } } } }""",  # confidence: as of the head it may differ in its last digit
}
JOB_OF = {read: f"{read}_as_of" for read in READS}


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _store(backend: Backend) -> Service:
    """Three unknowns declared, the as-of tests' mix (flags, disputes, questions, beliefs), then a dispute,
    a flag over it and a question about it, so each read has something to show at the head, and a note
    after them (so they stand at the position before the head too)."""
    service = Service.open(backend.whole_state_settings())
    write = service.journal.write
    for i in range(3):
        write("ann", lambda i=i: plans.plan_declare(service.state, "the pump", f"is it on? {i}", factor=f"pump-{i}"))
    write_knowledge_history(service, 60, 5)
    k = service.state.knowledge
    for value in ("red", "blue"):
        write("ann", lambda value=value: planning.plan_add(k, {"kind": "fact", "source": "person", "body": {
            "s": "gauge-9", "r": "colour", "o": value}}, by="ann"))
    disputed = next(e for e in k.open_disputes.values() if "gauge-9" in e.key)
    write("ann", lambda: planning.plan_flag(k, why="drift", ids=list(disputed.items)))
    write("ann", lambda: plans.plan_next_question(service.state, dispute_id(disputed)).draft)
    write("ann", lambda: plan_note("the end"))
    return service


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The apart jobs the resolvers start (each still runs, in its own process)."""
    jobs: list[str] = []

    def recording(graph: Any, job: str, **args: Any) -> Any:
        jobs.append(job)
        return apart.run_apart(graph, job, **args)

    for module in (knowledge_query, question_types, belief_query):
        monkeypatch.setattr(module, "run_apart", recording)
    yield jobs


def test_each_job_answers_the_page_the_in_process_fold_gives(backend: Backend) -> None:
    service = _store(backend)
    try:
        graph, position = service.graph, service.journal.seq - 1
        knowledge, questions = knowledge_from_history(graph, position), questions_from_history(graph, position)
        cuts = {
            "disputes_as_of": ("dispute", {}, lambda first, after: dispute_page(knowledge, first, after)),
            "flags_as_of": ("flag", {"pending": None}, lambda first, after: flag_page(knowledge, None, first, after)),
            "questions_as_of": ("question", {"answered": None},
                                lambda first, after: question_page(questions, None, first, after)),
            "unknowns_as_of": ("unknown", {"answered": False},
                               lambda first, after: unknown_page(questions, False, first, after)),
        }
        for job, (kind, args, cut) in cuts.items():
            first_page = cut(2, None)
            assert first_page.rows, job  # the history reached what the read is about
            after = encode_cursor(kind, first_page.rows[-1][0])
            for first, cursor in ((None, None), (2, None), (2, after)):
                here = cut(first, cursor).as_json(record_json)
                assert apart.run_apart(graph, job, as_of=position, **args, first=first, after=cursor) == _plain(here)
        given = {"kind": ["fact"], "status": ["active"]}
        here_items = item_page(knowledge, given, 3, None)
        assert here_items.rows
        assert apart.run_apart(graph, "items_as_of", as_of=position, given=given, size=3,
                               after=None) == _plain(here_items.as_json())
        page = {"status": None, "subject": None, "kind": None, "descending": False, "after_key": None,
                "after_id": None, "limit": 4}
        beliefs = belief_page(beliefs_then(graph, position), **page)
        assert beliefs.rows
        assert apart.run_apart(graph, "beliefs_as_of", as_of=position, **page) == _plain(
            {"rows": beliefs.rows, "more": beliefs.more, "total": beliefs.total})
    finally:
        service.close()


def test_the_reads_as_of_the_head_go_apart_and_answer_what_the_present_reads_answer(
        backend: Backend, asked: list[str]) -> None:
    service = _store(backend)
    try:
        client = TestClient(create_app(service.settings, service=service))
        head = service.journal.seq
        for read, query in READS.items():
            now = gql(client, query, {"first": 3})
            assert "errors" not in now and now["data"][read]["edges"], (read, now)
            cursor = now["data"][read]["pageInfo"]["endCursor"]
            for first, after in ((3, None), (3, cursor), (None, None)):
                asked.clear()
                then = gql(client, query, {"first": first, "after": after, "n": head})
                assert then == gql(client, query, {"first": first, "after": after}), (read, first, after)
                assert asked == [JOB_OF[read]], read
        # Naming its ids, items(asOf) reads only those, on the loop.
        asked.clear()
        some = sorted(service.state.knowledge.items)[:3]
        named = """query($n: Long, $ids: [String!]) { items(filter: {ids: $ids}, asOf: $n) { totalCount } }"""
        assert gql(client, named, {"n": head, "ids": some})["data"]["items"]["totalCount"] == 3
        assert asked == []
    finally:
        service.close()


def test_a_refusal_in_the_child_comes_back_with_its_field(backend: Backend, asked: list[str]) -> None:
    service = _store(backend)
    try:
        client = TestClient(create_app(service.settings, service=service))
        head = service.journal.seq
        for read, query in READS.items():
            if read in ("items", "beliefs"):  # their page size and cursor are read before the position
                continue
            for variables, field in (({"after": "bogus"}, "after"), ({"first": 0}, "first"),
                                     ({"first": 0, "after": "bogus"}, "first")):
                asked.clear()
                then = gql(client, query, {**variables, "n": head})
                assert asked == [JOB_OF[read]], read  # refused in the child
                error = then["errors"][0]
                assert (error["extensions"]["code"], error["extensions"]["field"]) == ("BAD_USER_INPUT", field)
                assert then == gql(client, query, variables), (read, variables)  # as the present read refuses
        # The position is checked here first: nothing starts for one past the head.
        asked.clear()
        past = gql(client, READS["flags"], {"n": head + 1, "after": "bogus"})
        assert past["errors"][0]["extensions"]["field"] == "asOf" and asked == []
    finally:
        service.close()
