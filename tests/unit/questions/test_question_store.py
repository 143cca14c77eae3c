"""Questions against the whole store: open targets counted from the knowledge, one entry per request,
answers applied to the knowledge within their own entry, and replays that give the same state."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.domain import Applied, Draft
from graph_service.errors import Conflict, NotFound
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.knowledge import planning
from graph_service.questions import ASK_QUESTION, DISPUTE, STALE_ITEM, UNKNOWN, plans
from graph_service.questions.targets import StateTargets, TargetView
from graph_service.state import StoreState, replay


class Store:
    """A store without a graph: seal each draft as the next entry and apply it to a StoreState."""

    def __init__(self) -> None:
        self.state = StoreState()
        self.entries: list[Entry] = []
        self.projections: list[Any] = []

    def commit(self, draft: Draft, by: str = "ann") -> Applied:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, by, 1_000 * len(self.entries), draft.payload)
        applied = self.state.apply(entry)
        self.entries.append(entry)
        self.projections.append(applied.projection)
        return applied

    def add(self, s: str, r: str, o: Any, **extra: Any) -> str:
        raw = {"kind": "fact", "body": {"s": s, "r": r, "o": o}, "source": "person", **extra}
        return self.commit(planning.plan_add(self.state.knowledge, raw, by="ann")).result["id"]


def same_on_replay(store: Store) -> None:
    again = replay(store.entries)
    assert again.fingerprint() == store.state.fingerprint()
    assert again.questions.questions() == store.state.questions.questions()
    assert again.questions.unknowns() == store.state.questions.unknowns()
    mirror = StoreState()
    assert [mirror.apply(e).projection for e in store.entries] == store.projections


def test_targets_count_what_rests_on_them_and_what_read_them() -> None:
    store = Store()
    base = store.add("pump", "rate", 5)
    store.add("pump", "alarm", "high", derived_from=[base])
    store.commit(planning.plan_snapshot(store.state.knowledge, about="pump"))
    store.commit(planning.plan_flag(store.state.knowledge, why="new supplier", ids=[base]))
    store.add("door", "colour", "blue")
    store.add("door", "colour", "red")
    unknown = store.commit(plans.plan_declare(store.state, "plant", "Is the pump oversized", factor="pump size",
                                              affects=[base], decisions=["snap-3"])).result["unknown"]
    found = {c.kind: c for c in TargetView(StateTargets(store.state.knowledge), store.state.questions).candidates()}
    assert set(found) == {DISPUTE, STALE_ITEM, UNKNOWN}
    stale = found[STALE_ITEM]
    assert (stale.id, stale.subject, stale.values, stale.opened_at) == (base, "pump rate", ("5",), 4)
    assert "new supplier" in stale.detail
    assert (stale.dependents, stale.snapshots, stale.decisions) == (1, 1, 1)  # the unknown names snap-3
    assert (found[UNKNOWN].id, found[UNKNOWN].dependents, found[UNKNOWN].snapshots) == (unknown, 2, 1)
    assert (found[DISPUTE].subject, found[DISPUTE].values) == ("door colour", ("blue", "red"))


def test_a_declaration_in_the_request_travels_inside_the_ask_entry() -> None:
    store = Store()
    declare = {"situation": "office move", "text": "Would our largest client stay", "factor": "client retention",
               "id": "n_client_retention"}
    planned = plans.plan_next_question(store.state, "n_client_retention", declare)
    assert planned.draft is not None and planned.draft.op == ASK_QUESTION
    assert planned.draft.payload["declare"]["id"] == "n_client_retention"
    store.commit(planned.draft, by="agent")
    assert len(store.entries) == 1
    record = store.state.questions.open_question_for("n_client_retention")
    assert record is not None and record.path == "preferred"
    again = plans.plan_next_question(store.state, "n_client_retention")
    assert (again.draft, again.existing) == (None, record)
    with pytest.raises(Conflict):
        plans.plan_next_question(store.state, None, declare)  # the same unknown twice
    same_on_replay(store)


def test_an_answer_changes_the_knowledge_in_its_own_entry_and_replays_the_same() -> None:
    store = Store()
    blue, red = store.add("door", "colour", "blue"), store.add("door", "colour", "red")
    asked = plans.plan_next_question(store.state)
    assert asked.draft is not None
    question = store.commit(asked.draft).result["question"]
    done = store.commit(plans.plan_answer(store.state, question, by="bob", value="red"), by="bob")
    assert done.result["changes"] == {blue: ("disputed", "refuted"), red: ("disputed", "active")}
    assert store.state.knowledge.open_disputes == {}
    with pytest.raises(Conflict):
        plans.plan_answer(store.state, question, by="bob", value="red")
    with pytest.raises(NotFound):
        plans.plan_answer(store.state, "nothing#q1", by="bob", value="red")
    same_on_replay(store)


def test_a_replay_leaving_out_an_answers_fact_leaves_it_out() -> None:
    store = Store()
    unknown = store.commit(plans.plan_declare(store.state, "plant", "Who maintains the pump")).result["unknown"]
    asked = plans.plan_next_question(store.state, unknown)
    assert asked.draft is not None
    question = store.commit(asked.draft).result["question"]
    done = store.commit(plans.plan_answer(store.state, question, by="bob", value="Acme"), by="bob")
    [added] = done.result["knowledge"]
    assert store.state.knowledge.status(added["id"]) == "active"
    assert store.state.knowledge.items[added["id"]].scope == {"situation": "plant"}
    without = replay(store.entries, skip=[added["id"]])
    assert added["id"] not in without.knowledge.items
    assert without.questions.question(question) == store.state.questions.question(question)
    same_on_replay(store)
