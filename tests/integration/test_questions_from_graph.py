"""The unknowns and questions on what they read of the graph (GRAPH_SERVICE_QUESTIONS=graph:
graph_service.from_graph.questions), on every backend: each request of random histories (unknowns declared, some
twice, under parents, bearing on items; the next question asked, preferred or ranked, some about an unknown the
request declares; answers, some to questions answered already or never asked) plans to the whole state's entry or
refusal, and the graph the applications write is what a replay projects (verify). A start reads nothing of them,
and a bulk load whose batches run ahead of the graph gives the same store."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graph_service.errors import UserError
from graph_service.from_graph.questions import GraphQuestions, QuestionParts
from graph_service.knowledge import planning
from graph_service.questions import plans
from graph_service.service import Service
from graph_service.state import StoreState
from tests.backends import Backend

SITUATIONS = ["office move", "launch", "hiring"]
TEXTS = ["who signs the lease?", "when is the deadline?", "is the budget approved?", "which floor?", "who leads?"]


def question_request(rng: random.Random, items: list[str], asked: list[str]) -> Callable[[StoreState], Any]:
    """A random question planner over a store: a declaration, the next question, or an answer."""
    roll = rng.random()
    if roll < 0.3:
        declaration: dict[str, Any] = {"situation": rng.choice(SITUATIONS), "text": rng.choice(TEXTS),
                                       "affects": rng.sample(items, rng.randint(0, min(2, len(items))))}
        if rng.random() < 0.3:
            declaration["factor"] = f"factor {rng.randint(0, 3)}"
        return lambda store: plans.plan_declare(store, **declaration)
    if roll < 0.6:
        preferred = rng.choice([None, None, *items[:3], "nothing-here"])
        declare = {"situation": rng.choice(SITUATIONS), "text": f"new {rng.randint(0, 50)}?"} \
            if rng.random() < 0.3 else None
        return lambda store: plans.plan_next_question(store, preferred, declare)
    question = rng.choice([*asked, "never-asked#q1"]) if asked else "never-asked#q1"
    value = rng.choice(["yes", "no", "ann", "the third floor"])
    confirmed = rng.choice([None, None, None, True, False])
    return lambda store: plans.plan_answer(store, question, by="ann", value=value, confirmed=confirmed)


def _outcome(planned: Any) -> Any:
    if isinstance(planned, plans.NextQuestion):
        return (planned.draft, planned.existing, planned.declared, planned.selection)
    return planned


def _plan(plan: Callable[[], Any]) -> Any:
    try:
        return _outcome(plan())
    except UserError as refused:
        return type(refused).__name__, str(refused), refused.field


def _seed_items(service: Service, whole: StoreState) -> list[str]:
    ids = []
    for n, (s, o) in enumerate([("door", "red"), ("door", "blue"), ("lease", "signed"), ("floor", "3")]):
        raw = {"kind": "fact", "body": {"s": s, "r": "is", "o": o}, "source": "person" if n % 2 else "tool"}
        written = service.journal.write("ann", lambda raw=raw: planning.plan_add(service.state.knowledge, raw,
                                                                                  by="ann"))
        whole.apply(written.entry)
        if written.result.get("id"):  # a refused one has none
            ids.append(written.result["id"])
    return ids


def _history(service: Service, whole: StoreState, seed: int, requests: int) -> tuple[dict[str, int], set[str]]:
    """Plan each request on the service and on `whole` (the whole state fed the same entries): the same entry or
    refusal; write the entry. What was written, by operation, and the refusals' kinds."""
    rng, written, refused = random.Random(seed), {}, set()
    items = _seed_items(service, whole)
    asked: list[str] = []
    for _ in range(requests):
        plan = question_request(rng, items, asked)
        expected = _plan(lambda plan=plan: plan(whole))
        assert _plan(lambda plan=plan: service.plan_on_store(plan)) == expected
        if isinstance(expected, tuple) and isinstance(expected[0], str):
            refused.add(expected[0])
            continue
        draft = expected[0] if isinstance(expected, tuple) else expected
        if draft is None:
            continue
        done = service.journal.write("ann", lambda draft=draft: draft)
        assert done.result == whole.apply(done.entry).result
        if done.entry.op == "question.ask":
            asked.append(done.result["question"])
        written[done.entry.op] = written.get(done.entry.op, 0) + 1
    return written, refused


@pytest.mark.parametrize("seed", [2, 13])
def test_a_question_write_on_what_it_reads_of_the_graph_is_the_whole_states(backend: Backend, seed: int) -> None:
    service = Service.open(backend.settings(questions="graph"))
    try:
        assert service.questions_in_graph and isinstance(service.state.questions, GraphQuestions)
        whole = StoreState()
        written, refused = _history(service, whole, seed, 120)
        assert min(written.get(op, 0) for op in ("unknown.declare", "question.ask", "question.answer")) >= 4, written
        assert {"NotFound", "Conflict"} <= refused, refused
        assert service.state.questions.ranking_view().unknowns() == whole.questions.unknowns()
        report = service.verify()  # the graph the reads wrote is the one a replay projects
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_start_reads_nothing_of_the_questions(backend: Backend) -> None:
    settings = backend.settings(questions="graph")
    service = Service.open(settings)
    try:
        whole = StoreState()
        assert sum(_history(service, whole, 29, 60)[0].values()) > 15
    finally:
        service.close()
    again = Service.open(settings)
    try:
        parts = again.state.questions_taken
        assert isinstance(parts, QuestionParts) and parts.reads == 0
        for unknown in whole.questions.unknowns():
            assert again.state.questions.unknown(unknown.id) == unknown
        for question in whole.questions.questions():
            assert again.state.questions.question(question.id) == question
            assert again.state.questions.open_question_for(question.target) == \
                whole.questions.open_question_for(question.target)
        assert again.verify().ok
    finally:
        again.close()


def test_a_bulk_load_ahead_of_the_graph_gives_the_same_store(backend: Backend, tmp_path: Path) -> None:
    source = Service.open(backend.settings())
    try:
        assert sum(_history(source, StoreState(), 37, 120)[0].values()) > 30
        entries, fingerprints = list(source.journal.entries_after(0)), source.fingerprints()
    finally:
        source.close()
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.settings(questions="graph"))
    try:
        assert service.journal.import_entries(entries, batch_size=7) == len(entries)
        ours = sum(1 for e in entries if e.op in ("unknown.declare", "question.ask", "question.answer"))
        parts = service.state.questions_taken
        assert isinstance(parts, QuestionParts) and parts.reads * 2 < ours, (parts.reads, ours)  # windows read ahead
        assert service.fingerprints() == fingerprints
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()
