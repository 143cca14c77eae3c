"""`recall(..., asOf: N)`, `questions(asOf: N)` and `unknowns(asOf: N)` on every backend (issue 11):
answered from the graph's history, each equals the same read on a replay of the journal up to N, at
random positions of a random history: the realistic mix, plus observers declared, rows observed and
boundaries crossed, observations marked inaccurate, unknowns declared, questions asked (declaring
their unknown in the same write) and answered. The question state rebuilt as of N also feeds the open
targets' view (TargetView, open_question_for) as the replay's does."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.journal.notes import plan_note
from graph_service.questions import plans
from graph_service.questions.as_of import question_state_at
from graph_service.questions.targets import StateTargets, TargetView
from graph_service.service import Service
from graph_service.state import StoreState, replay
from graph_service.stream import OP_DECLARE, OP_OBSERVE, OP_PRESENCE
from tests.backends import Backend
from tests.integration.graphql_client import gql

RECALL = """query($o: String!, $now: Long!, $k: Int!, $h: Float!, $wr: Float!, $wi: Float!, $n: Long) {
  recall(observer: $o, now: $now, k: $k, halfLife: $h, wRecency: $wr, wImportance: $wi, asOf: $n) {
    rank id observer tick kind subject magnitude weight first age recency importance score } }"""
QUESTION_FIELDS = ("id target targetKind subject parent text path preferred rejected askedAt askedBy answered answer "
                   "answeredAt answeredBy")
UNKNOWN_FIELDS = "id situation factor text parent affects decisions declaredAt answered answer answeredAt"
LISTS = f"""query($n: Long, $a: Boolean) {{
  questions(asOf: $n, answered: $a, first: 500) {{ totalCount edges {{ node {{ {QUESTION_FIELDS} }} }} }}
  unknowns(asOf: $n, answered: $a, first: 500) {{ totalCount edges {{ node {{ {UNKNOWN_FIELDS} }} }} }} }}"""


def _or_note(plan: Callable[[], Draft]) -> Callable[[], Draft]:
    def planned() -> Draft:
        try:
            return plan()
        except UserError as refused:
            return plan_note(f"refused: {refused}")
    return planned


def _extras(state: StoreState, rng: random.Random, tick: list[int]) -> Callable[[], Draft] | None:
    """One write the mix lacks, planned on the state as it is when written."""
    tick[0] += 1
    at = tick[0]
    observers = [o.id for o in state.stream.observers()]
    roll = rng.random()
    if roll < 0.08:
        name = f"eye-{len(observers)}"
        return lambda: state.stream.plan(OP_DECLARE, {"observer": name, "wordless": rng.random() < 0.3})
    if roll < 0.35:
        kind = rng.choice(("seen", "given", "taken"))
        payload = {"observer": rng.choice(observers), "tick": at, "kind": kind, "subject": f"thing-{rng.randrange(15)}",
                   "magnitude": 0 if kind == "seen" else rng.choice((1, 6, 40)),
                   "weight": rng.choice((None, None, rng.randint(1, 10)))}
        return lambda: state.stream.plan(OP_OBSERVE, payload)
    if roll < 0.55:
        moved = [{"kind": "given", "subject": f"thing-{rng.randrange(15)}", "magnitude": rng.randint(1, 40)}
                 for _ in range(rng.randint(0, 1))]
        payload = {"observer": rng.choice(observers), "tick": at,
                   "in_view": [f"thing-{s}" for s in rng.sample(range(15), rng.randint(0, 4))], "transfers": moved}
        return lambda: state.stream.plan(OP_PRESENCE, payload)
    if roll < 0.65:
        rows = state.stream.observations()
        if not rows:
            return None
        root = rng.choice(rows).id
        return lambda: state.beliefs.plan("belief.correct", {"kind": "inaccurate", "root_kind": "observation",
                                                             "root_id": root, "reason": "it was not so"})
    if roll < 0.75:
        unknowns = state.questions.unknowns()
        affects = rng.sample(sorted(state.knowledge.items), min(len(state.knowledge.items), rng.randint(0, 2)))
        declaration = {"situation": f"situation-{rng.randrange(3)}", "text": f"what of {at}?",
                       "factor": f"factor-{at}", "affects": affects,
                       "parent": rng.choice(unknowns).id if unknowns and rng.random() < 0.5 else None}
        return lambda: plans.plan_declare(state, **declaration)
    if roll < 0.87:
        declare = {"situation": "asked", "text": f"and {at}?", "factor": f"asked-{at}"} if rng.random() < 0.4 else None
        # A preference for a target nobody asked about yet (else the most material one, often asked already).
        unasked = [u.id for u in state.questions.unknowns(answered=False)
                   if state.questions.open_question_for(u.id) is None]
        unasked += [d for d in state.knowledge.open_disputes if state.questions.open_question_for(d) is None]
        prefer = rng.choice(unasked) if unasked and declare is None else None

        def ask() -> Draft:
            planned = plans.plan_next_question(state, prefer, declare)
            return planned.draft if planned.draft is not None else plan_note("nothing to ask")
        return ask
    open_questions = state.questions.questions(answered=False)
    if not open_questions:
        return None
    question = rng.choice(open_questions)

    def answer() -> Draft:
        value: Any = f"answer {at}"
        confirmed = None
        if question.target_kind == "dispute":
            value = json.loads(rng.choice(state.knowledge.open_disputes[question.target].values))
        elif question.target_kind == "stale_item":
            value, confirmed = None, True
        return plans.plan_answer(state, question.id, by="loader", value=value, confirmed=confirmed)
    return answer


def _plans(service: Service, n: int, seed: int) -> Iterator[Callable[[], Draft]]:
    from benchmarks.service_shape import mix

    rng = random.Random(seed)
    tick = [10_000]  # after every tick the mix writes: a boundary is never before the last one
    for plan in mix(service, n, seed):
        yield plan
        extra = _extras(service.state, rng, tick) if rng.random() < 0.6 else None
        if extra is not None:
            yield _or_note(extra)


def _history(service: Service, n: int, seed: int) -> None:
    """Most of it loaded in batches (one projection statement for many entries, as a bulk load writes),
    the rest one write at a time (as the API writes): each plan sees the state the ones before it made."""
    plans = _plans(service, n, seed)
    service.journal.write_batch("loader", itertools.islice(plans, n), batch_size=20)
    for plan in plans:
        service.journal.write("loader", plan)


def _expected_recall(state: StoreState, args: dict[str, Any]) -> Any:
    try:
        ranked = state.stream.recall(args["o"], args["now"], args["k"], args["h"], args["wr"], args["wi"])
    except UserError as refused:
        return str(refused)
    return [r.as_dict() for r in ranked]


def _got_recall(client: TestClient, args: dict[str, Any]) -> Any:
    got = gql(client, RECALL, args)
    if "errors" in got:
        return got["errors"][0]["message"]
    return got["data"]["recall"]  # the fields of Recalled.as_dict, by the same names


def _question(q: Any) -> dict[str, Any]:
    return {"id": q.id, "target": q.target, "targetKind": q.target_kind, "subject": q.subject, "parent": q.parent,
            "text": q.text, "path": q.path, "preferred": q.preferred, "rejected": q.rejected, "askedAt": q.asked_at,
            "askedBy": q.by, "answered": q.answered, "answer": q.answer, "answeredAt": q.answered_at,
            "answeredBy": q.answered_by}


def _unknown(u: Any) -> dict[str, Any]:
    return {"id": u.id, "situation": u.situation, "factor": u.factor, "text": u.text, "parent": u.parent,
            "affects": list(u.affects), "decisions": list(u.decisions), "declaredAt": u.declared_at,
            "answered": u.answered, "answer": u.answer, "answeredAt": u.answered_at}


OBSERVATION = """query($id: String!, $n: Long) { observation(id: $id, asOf: $n) {
  id kind tick entry observer subject text speaker inaccurate inaccurateReason } }"""


def _check_observations_as_of(client: TestClient, entries: list[Any]) -> None:
    """observation(id, asOf): missing before the entry that wrote it; then as now, except that it is marked
    inaccurate only from the entry that marked it (its one change)."""
    marks = {e.payload["root_id"]: (e.seq, e.payload.get("reason")) for e in entries
             if e.op == "belief.correct" and e.payload.get("kind") == "inaccurate"
             and e.payload.get("root_kind") == "observation"}
    for observation_id, (marked_at, reason) in sorted(marks.items())[:4]:
        now = gql(client, OBSERVATION, {"id": observation_id, "n": None})["data"]["observation"]
        assert now["inaccurate"] and now["inaccurateReason"] == reason
        written = now["entry"]
        before = gql(client, OBSERVATION, {"id": observation_id, "n": written - 1})
        assert before["data"]["observation"] is None and before["errors"][0]["extensions"]["code"] == "NOT_FOUND"
        for position, marked in ((written, False), (marked_at - 1, False), (marked_at, True)):
            got = gql(client, OBSERVATION, {"id": observation_id, "n": position})["data"]["observation"]
            expected = {**now, "inaccurate": marked, "inaccurateReason": reason if marked else None}
            assert got == expected, (observation_id, position)


def test_recall_and_the_question_lists_as_of_any_position_are_the_replay_s(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        _history(service, 160, 11)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        ops = Counter(e.op for e in entries)
        inaccurate = sum(1 for e in entries if e.op == "belief.correct" and e.payload.get("root_kind") == "observation")
        assert ops["stream.presence"] and ops["stream.observe"] and inaccurate and ops["unknown.declare"], ops
        assert ops["question.ask"] >= 3 and ops["question.answer"] >= 2, ops
        assert any(e.op == "question.ask" and "declare" in e.payload for e in entries)
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(5)
        recalled = asked = 0
        for position in [0, *sorted(rng.sample(range(1, head), 6)), head]:
            then = replay(entries, upto=position)
            names = [o.id for o in then.stream.observers()] + ["eye-99", "Cam-1"]
            for name in names:
                rows = then.stream.observations(name.casefold()) if then.stream.observer(name.casefold()) else ()
                latest = max((r.tick for r in rows), default=0)
                args = {"o": name, "now": latest + rng.randint(0, 30) if rng.random() < 0.85 else max(0, latest - 3),
                        "k": rng.randint(0, 8), "h": rng.choice((5.0, 50.0, 123.5)), "wr": rng.uniform(0, 2),
                        "wi": rng.uniform(0, 2), "n": position}
                expected = _expected_recall(then, args)
                assert _got_recall(client, args) == expected, (position, name)
                recalled += isinstance(expected, list) and len(expected) > 0
            for answered in (None, True, False):
                got = gql(client, LISTS, {"n": position, "a": answered})
                assert "errors" not in got, (position, got)
                questions = [_question(q) for q in then.questions.questions(answered=answered)]
                unknowns = [_unknown(u) for u in then.questions.unknowns(answered=answered)]
                assert [e["node"] for e in got["data"]["questions"]["edges"]] == questions, (position, answered)
                assert got["data"]["questions"]["totalCount"] == len(questions)
                assert [e["node"] for e in got["data"]["unknowns"]["edges"]] == unknowns, (position, answered)
                assert got["data"]["unknowns"]["totalCount"] == len(unknowns)
            asked += len(then.questions.questions())
            # What openQuestions(asOf) will read from the question side, as the replay's state answers it.
            rebuilt = question_state_at(service.graph.run("questions_history_upto", {"upto": position}),
                                        service.graph.run("unknown_affects_upto", {"upto": position}), position)
            targets = StateTargets(then.knowledge)
            view, reference = TargetView(targets, rebuilt), TargetView(targets, then.questions)
            assert view.candidates() == reference.candidates(), position
            for c in reference.candidates():
                assert rebuilt.open_question_for(c.id) == then.questions.open_question_for(c.id), (position, c.id)
                assert rebuilt.questions_about(c.id) == then.questions.questions_about(c.id), (position, c.id)
        assert recalled > 20 and asked > 10  # the sample reached many rows and questions
        _check_observations_as_of(client, entries)
        marked = next(e.payload["root_id"] for e in entries
                      if e.op == "belief.correct" and e.payload.get("root_kind") == "observation")
        assert any(r["id"] == marked for r in _got_recall(client, {
            "o": next(o.observer for o in replay(entries).stream.observations() if o.id == marked),
            "now": 10**6, "k": 10**4, "h": 50.0, "wr": 1.0, "wi": 1.0, "n": head}))  # inaccurate rows stay
        # recall now (asOf null) reads the observer's rows from the graph at the head, not the in-memory state's.
        now_args = [{"o": o.id, "now": 10**6 - i, "k": i, "h": 50.0, "wr": 1.0, "wi": 0.5 + i / 10, "n": None}
                    for i, o in enumerate(service.state.stream.observers())] + [
            {"o": "eye-99", "now": 5, "k": 3, "h": 50.0, "wr": 1.0, "wi": 1.0, "n": None}]
        expected_now = [_expected_recall(service.state, a) for a in now_args]
        assert sum(isinstance(e, list) and len(e) > 0 for e in expected_now) >= 2, expected_now

        def not_read(*args: Any) -> Any:
            raise AssertionError("recall read the in-memory state")

        monkeypatch.setattr(service.state.stream, "recall", not_read)
        assert [_got_recall(client, a) for a in now_args] == expected_now
        past = gql(client, RECALL, {"o": "cam-1", "now": 10**6, "k": 3, "h": 50.0, "wr": 1.0, "wi": 1.0, "n": head + 1})
        assert past["errors"][0]["extensions"]["field"] == "asOf" and "is not in the journal" in \
            past["errors"][0]["message"]
        past = gql(client, LISTS, {"n": head + 1, "a": None})
        assert past["data"] is None and all("is not in the journal" in e["message"] for e in past["errors"])
        negative = gql(client, LISTS, {"n": -1, "a": None})
        assert all(e["extensions"]["field"] == "asOf" for e in negative["errors"])
        # A store whose history does not reach (written before it was kept): an error naming asOf, no guess.
        backend.raw(service.graph, "MATCH (:Observation)<-[w:WROTE]-() SET w.changes = null")
        backend.raw(service.graph, "MATCH (:Question)<-[w:WROTE]-() SET w.changes = null")
        for query, args in ((RECALL, {"o": "cam-1", "now": 10**6, "k": 3, "h": 50.0, "wr": 1.0, "wi": 1.0, "n": head}),
                            (LISTS, {"n": head, "a": None})):
            missing = gql(client, query, args)["errors"][0]
            assert missing["extensions"]["field"] == "asOf" and "kept no history" in missing["message"], missing
    finally:
        service.close()
