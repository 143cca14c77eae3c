"""The open targets read from the graph (graph_service.from_graph.targets.GraphTargets: what is open and what
it stands on, by indexes) rank exactly as the whole in-memory state's (questions.targets.StateTargets), on
every backend, along a random history that raises and ends flags, disputes and resolves keys, runs
re-confirmation periods out with ticks, records snapshots, retracts, rolls back, asks and answers, and
declares unknowns on items and snapshots; `openQuestions` now serves the graph's ranking."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.from_graph.targets import GraphTargets
from graph_service.questions import plans
from graph_service.questions.candidates import DISPUTE, STALE_ITEM, UNKNOWN
from graph_service.questions.ranking import open_question_rows
from graph_service.questions.targets import StateTargets, TargetView
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.graphql_client import gql
from tests.integration.knowledge_histories import write_knowledge_history

OPEN = "{ openQuestions(first: 500) { totalCount edges { node { target targetKind subject parent text asked " \
       "score { materiality dependents snapshots decisions } } } } }"


def declare_unknowns(service: Service, rng: random.Random, n: int) -> None:
    """Unknowns bearing on random items and recorded snapshots (their materiality counts decisions)."""
    state = service.state
    for _ in range(n):
        i = rng.randrange(10**9)
        items = sorted(state.knowledge.items)
        snapshots = sorted(state.knowledge.snapshots)
        affects = rng.sample(items, min(len(items), rng.randint(1, 3)))
        decisions = rng.sample(snapshots, min(len(snapshots), rng.randint(0, 2)))
        service.journal.write("ann", lambda affects=affects, decisions=decisions, i=i: plans.plan_declare(
            state, "planning", f"is it so, {i}?", affects=affects, decisions=decisions))


def graph_targets(service: Service) -> GraphTargets:
    return GraphTargets(service.graph, KnowledgeRead(service.graph, service.journal.seq))


@pytest.mark.parametrize("seed", [3, 8])
def test_the_graphs_open_targets_are_the_whole_states(backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        rng = random.Random(seed)
        kinds: set[str] = set()
        clock_stale = 0
        counted: set[str] = set()  # the materiality counts some candidate had
        asked: set[str] = set()  # the questions open on some target
        for _ in range(3):
            write_knowledge_history(service, 60, rng.randrange(10**6))
            declare_unknowns(service, rng, 3)
            whole = TargetView(StateTargets(service.state.knowledge), service.state.questions)
            read = TargetView(graph_targets(service), service.state.questions)
            expected = whole.candidates()
            assert read.candidates() == expected
            ranked = open_question_rows(StateTargets(service.state.knowledge), service.state.questions)
            assert open_question_rows(graph_targets(service), service.state.questions) == ranked
            # What the API ranks on: a copy of the unknowns and the open questions only.
            assert open_question_rows(graph_targets(service), service.state.questions.ranking_view()) == ranked
            asked |= {r["asked"] for r in ranked if r["asked"] is not None}
            kinds |= {c.kind for c in expected if not c.resolved}
            clock_stale += sum(c.kind == STALE_ITEM and "reconfirm_after ran out" in (c.detail or "")
                               for c in expected)
            counted |= {name for c in expected for name in ("dependents", "snapshots", "decisions")
                        if getattr(c, name)}
        assert kinds == {DISPUTE, STALE_ITEM, UNKNOWN} and clock_stale > 0, (kinds, clock_stale)
        assert counted == {"dependents", "snapshots", "decisions"}, counted
        assert asked, "some target must have a question awaiting its answer"

        # The API ranks the graph's targets: as the whole state ranks them, to the letter.
        client = TestClient(create_app(service.settings, service=service))
        got = gql(client, OPEN)
        assert "errors" not in got, got
        rows = open_question_rows(StateTargets(service.state.knowledge), service.state.questions)
        assert [e["node"]["target"] for e in got["data"]["openQuestions"]["edges"]] == [r["target"] for r in rows]
        assert got["data"]["openQuestions"]["totalCount"] == len(rows)
    finally:
        service.close()


def test_open_questions_read_the_graph_and_a_store_that_does_not_keep_what_they_read_ranks_its_state(
        backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 80, 4)
        client = TestClient(create_app(service.settings, service=service))
        before = gql(client, OPEN)["data"]["openQuestions"]
        disputes = [e["node"]["target"] for e in before["edges"] if e["node"]["targetKind"] == "dispute"]
        assert disputes, before
        # Closing a dispute in the graph alone shows: the ranking reads the graph, not the state.
        backend.raw(service.graph, "MATCH (d:Dispute {id: $id}) SET d.open = false", {"id": disputes[0]})
        tampered = gql(client, OPEN)["data"]["openQuestions"]
        assert disputes[0] not in [e["node"]["target"] for e in tampered["edges"]]
        backend.raw(service.graph, "MATCH (d:Dispute {id: $id}) SET d.open = true", {"id": disputes[0]})
        backend.raw(service.graph, "MATCH (h:Head) SET h.keeps = 1")  # as a store written before Item.reconfirm_due
    finally:
        service.close()
    service = Service.open(backend.whole_state_settings())
    try:
        client = TestClient(create_app(service.settings, service=service))
        assert not service.journal.keeps_at_least(2)
        backend.raw(service.graph, "MATCH (d:Dispute) SET d.open = false")  # not read: the state ranks
        rows = open_question_rows(StateTargets(service.state.knowledge), service.state.questions)
        got = gql(client, OPEN)["data"]["openQuestions"]
        assert [e["node"]["target"] for e in got["edges"]] == [r["target"] for r in rows] and rows
    finally:
        service.close()


def test_an_item_whose_latest_live_assertion_ran_out_is_asked_about_though_what_it_stands_on_did_not(
        backend: Backend) -> None:
    """The clock rule reads the latest live assertion (KnowledgeState.stale_reasons), not the latest one the
    item stands on: re-asserted on a premise that is then retracted, with a shorter period that runs out, the
    item still stands on its first assertion (not expired) yet awaits re-confirmation, and the graph finds it
    by Item.reconfirm_due where its verdict's expires_at would not."""
    from graph_service.knowledge import planning

    service = Service.open(backend.whole_state_settings())
    try:
        k = service.state.knowledge

        def add(raw: dict[str, object]) -> str:
            return service.journal.write("ann", lambda: planning.plan_add(k, raw, by="ann")).result["id"]

        body = {"s": "pump", "r": "state", "o": "ok"}
        item = add({"kind": "fact", "body": body, "source": "person", "reconfirm_after": 100})
        premise = add({"kind": "fact", "body": {"s": "gauge", "r": "reads", "o": 3}, "source": "person"})
        assert add({"kind": "fact", "body": body, "source": "person", "derived_from": [premise],
                    "reconfirm_after": 2}) == item
        service.journal.write("ann", lambda: planning.plan_retract(k, premise, "misread"))
        service.journal.write("ann", lambda: planning.plan_tick(k, 5))
        rec = k.items[item]
        assert rec.status not in ("expired", "retracted") and rec.verdict.expires_at > k.clock >= \
            rec.materialise()["reconfirm_due"], (rec.status, rec.verdict, k.clock)
        whole = TargetView(StateTargets(k), service.state.questions).candidates()
        assert item in {c.id for c in whole if c.kind == STALE_ITEM}, whole
        assert TargetView(graph_targets(service), service.state.questions).candidates() == whole
    finally:
        service.close()


def test_open_questions_rank_in_a_worker_thread_not_on_the_event_loop(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ranking reads the graph for every open target: on the loop it would hold up every other request.
    from graph_service.api import question_types

    where: list[str] = []

    def ranking(*args: Any) -> list[dict[str, Any]]:
        try:
            asyncio.get_running_loop()
            where.append("the event loop")
        except RuntimeError:  # no loop runs in this thread
            where.append("a worker thread")
        return open_question_rows(*args)

    monkeypatch.setattr(question_types, "open_question_rows", ranking)
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 40, 6)
        client = TestClient(create_app(service.settings, service=service))
        got = gql(client, OPEN)
        assert "errors" not in got and got["data"]["openQuestions"]["edges"], got
        assert where == ["a worker thread"], where
    finally:
        service.close()


NEXT = "mutation { nextQuestion { id target targetKind path ranking { target } } }"


def test_next_question_ranks_the_graphs_targets_off_the_loop_and_the_states_if_a_write_came_between(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    from graph_service.api import question_types

    where: list[str] = []
    read = question_types._open_targets_off_the_loop

    async def recorded(service: Service) -> Any:
        found = await read(service)
        where.append("graph" if found is not None else "none")
        return found

    monkeypatch.setattr(question_types, "_open_targets_off_the_loop", recorded)
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 80, 4)
        client = TestClient(create_app(service.settings, service=service))
        ranked = [r["target"] for r in open_question_rows(StateTargets(service.state.knowledge),
                                                          service.state.questions)]
        assert ranked, "the history leaves targets open"
        got = gql(client, NEXT)
        assert "errors" not in got, got
        asked = got["data"]["nextQuestion"]
        # What was chosen is the whole state's first, and the ranking journalled is the whole state's.
        assert asked["target"] == ranked[0] and [s["target"] for s in asked["ranking"]] == ranked, asked
        assert where == ["graph"], where

        # A dispute closed in the graph alone is not ranked: the targets were the graph's.
        disputes = [t for t in ranked[1:] if t.startswith("d-")]  # dispute ids (records.dispute_id)
        assert disputes, ranked
        backend.raw(service.graph, "MATCH (d:Dispute {id: $id}) SET d.open = false", {"id": disputes[0]})
        tampered = gql(client, NEXT)["data"]["nextQuestion"]
        assert disputes[0] not in [s["target"] for s in tampered["ranking"]], tampered

        # Read at a position a write then passed: the plan reads the state's targets instead (the tampered
        # graph's are not what it ranks).
        async def stale(service: Service) -> Any:
            return service.journal.seq - 1, []

        monkeypatch.setattr(question_types, "_open_targets_off_the_loop", stale)
        again = gql(client, NEXT)["data"]["nextQuestion"]
        whole = [r["target"] for r in open_question_rows(StateTargets(service.state.knowledge),
                                                         service.state.questions)]
        assert [s["target"] for s in again["ranking"]] == whole and disputes[0] in whole, again
        backend.raw(service.graph, "MATCH (d:Dispute {id: $id}) SET d.open = true", {"id": disputes[0]})
    finally:
        service.close()
