"""Declaring unknowns, asking and answering questions: plans, journal entries, projections."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.domain import Applied, Domain, Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.questions import (
    ANSWER_QUESTION,
    ASK_QUESTION,
    DECLARE_UNKNOWN,
    DISPUTE,
    FALLBACK,
    PREFERRED,
    STALE_ITEM,
    Candidate,
    QuestionState,
    select_next_question,
)


class Journal:
    """Just enough of a store: seal each draft as the next entry and apply it."""

    def __init__(self) -> None:
        self.state = QuestionState()
        self.entries: list[Entry] = []

    def commit(self, draft: Draft, by: str = "alice") -> Applied:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, by, 1_000 * len(self.entries), draft.payload)
        applied = self.state.apply(entry)
        self.entries.append(entry)
        return applied


def snapshot_of(state: QuestionState) -> Any:
    """Everything the state exposes, as frozen records (equal iff nothing changed)."""
    unknowns = [state.unknown(c.id) for c in state.unknown_candidates()]
    return (tuple(unknowns), tuple(state.questions()), tuple(state.unknown_candidates()))


def relocation(journal: Journal) -> tuple[str, str]:
    """The seed's shape: a decision-level unknown, then a material factor of it."""
    decision = journal.commit(
        journal.state.plan_declare_unknown(
            "office move",
            "Which option leaves us better off overall",
            factor="relocation",
            affects=["item-costs", "item-commute", "item-lease", "item-costs"],
            decisions=["snap-move"],
            id="n_relocation_decision",
        )
    ).result["unknown"]
    factor = journal.commit(
        journal.state.plan_declare_unknown(
            "office move",
            "Would our largest client stay if we moved",
            factor="client retention",
            affects=["item-revenue"],
            parent=decision,
            id="n_client_retention",
        )
    ).result["unknown"]
    return decision, factor


def test_the_state_is_a_domain_for_its_three_ops() -> None:
    state: Domain = QuestionState()
    assert all(state.handles(op) for op in (DECLARE_UNKNOWN, ASK_QUESTION, ANSWER_QUESTION))
    assert not state.handles("resolve")
    with pytest.raises(ValueError):
        state.apply(Entry(seq=1, op="resolve", by="a", at=0))


def test_declaring_an_unknown_projects_it_with_what_it_affects() -> None:
    journal = Journal()
    draft = journal.state.plan_declare_unknown(
        " office move ",
        "Would our largest client stay",
        factor="client retention",
        affects=["item-b", "item-a", "item-b"],
        decisions=["snap-1"],
    )
    assert journal.state.unknown_candidates() == []  # planning changed nothing
    assert draft.op == DECLARE_UNKNOWN
    assert draft.payload["situation"] == "office move"
    assert draft.payload["affects"] == ["item-a", "item-b"] and draft.payload["decisions"] == ["snap-1"]
    assert draft.payload["id"].startswith("unknown-")
    applied = journal.commit(draft)
    [node] = applied.projection.nodes
    assert (node.label, node.id) == ("Unknown", draft.payload["id"])
    assert node.props["factor"] == "client retention" and node.props["status"] == "open"
    assert node.props["declared_at"] == 1 and node.props["declared_by"] == "alice"
    assert sorted((e.dst_label, e.dst) for e in applied.projection.edges) == [
        ("Item", "item-a"),
        ("Item", "item-b"),
        ("Snapshot", "snap-1"),
    ]
    assert {e.rel for e in applied.projection.edges} == {"AFFECTS"}
    applied.projection.as_params()  # only scalar properties: the store can write it
    [candidate] = journal.state.unknown_candidates()
    assert (candidate.subject, candidate.parent, candidate.dependents, candidate.decisions) == (
        "client retention",
        "office move",
        2,
        1,
    )


def test_the_same_unknown_declared_twice_is_a_conflict() -> None:
    journal = Journal()
    journal.commit(journal.state.plan_declare_unknown("s", "what is the budget", factor="budget"))
    with pytest.raises(Conflict) as err:
        journal.state.plan_declare_unknown("s", "what is the budget", factor="budget")
    assert err.value.field == "id"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"situation": ""}, "situation"),
        ({"situation": None}, "situation"),
        ({"text": "   "}, "text"),
        ({"factor": ""}, "factor"),
        ({"affects": "item-a"}, "affects"),
        ({"affects": ["item-a", 3]}, "affects"),
        ({"decisions": [""]}, "decisions"),
        ({"parent": 5}, "parent"),
        ({"id": "u", "parent": "u"}, "parent"),
        ({"text": "x" * 2001}, "text"),
    ],
)
def test_bad_declarations_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {"situation": "s", "text": "t"}
    args.update(kwargs)
    state = QuestionState()
    with pytest.raises(UserError) as err:
        state.plan_declare_unknown(args.pop("situation"), args.pop("text"), **args)
    assert err.value.field == field
    assert state.unknown_candidates() == []


def test_seed_flow_the_added_factor_is_asked_about_and_its_answer_becomes_a_person_fact() -> None:
    journal = Journal()
    decision, factor = relocation(journal)
    candidates = journal.state.unknown_candidates()
    fallback = select_next_question(candidates)
    assert fallback.target is not None and fallback.target.id == decision  # more rests on the decision

    chosen = select_next_question(candidates, preferred=factor)
    assert chosen.path == PREFERRED
    ask = journal.state.plan_ask(chosen)
    assert ask.payload["id"] == "n_client_retention#q1"
    applied = journal.commit(ask, by="agent")
    [node] = applied.projection.nodes
    assert node.label == "Question"
    assert node.props["text"] == (
        "About client retention (in relocation): Would our largest client stay if we moved?"
    )
    assert (node.props["target"], node.props["target_kind"], node.props["path"]) == (
        factor,
        "unknown",
        PREFERRED,
    )
    assert (node.props["asked_at"], node.props["answered"], node.props["answer"]) == (3, False, None)
    [edge] = applied.projection.edges
    assert (edge.rel, edge.dst_label, edge.dst) == ("ASKS_ABOUT", "Unknown", factor)

    answer = journal.state.plan_answer("n_client_retention#q1", value="yes, with a discount")
    assert answer.payload["effect"] == {
        "add_fact": {"s": "client retention", "r": "is", "o": "yes, with a discount", "scope": "office move"},
        "source": "person",
        "answers_unknown": factor,
    }
    done = journal.commit(answer, by="bob")
    assert done.result == {"question": "n_client_retention#q1", "effect": answer.payload["effect"]}
    props = {n.label: n.props for n in done.projection.nodes}
    assert props["Question"]["answered"] is True and props["Question"]["answered_by"] == "bob"
    assert props["Unknown"] == {"status": "answered", "answer": "yes, with a discount", "answered_at": 4}
    record = journal.state.question("n_client_retention#q1")
    assert record is not None and record.answered and record.answer == "yes, with a discount"

    # Answered: the unknown is no longer open, so the next pick falls back to the decision.
    after = select_next_question(journal.state.unknown_candidates(), preferred=factor)
    assert (after.path, after.rejected, after.target.id if after.target else None) == (
        FALLBACK,
        "resolved",
        decision,
    )
    with pytest.raises(Conflict):
        journal.state.plan_ask(chosen)


def test_answering_twice_is_a_conflict_and_changes_nothing() -> None:
    journal = Journal()
    _, factor = relocation(journal)
    journal.commit(journal.state.plan_ask(select_next_question(journal.state.unknown_candidates(), factor)))
    first = journal.state.plan_answer(f"{factor}#q1", value="they stay")
    journal.commit(first)
    before, entries = snapshot_of(journal.state), len(journal.entries)
    with pytest.raises(Conflict) as err:
        journal.state.plan_answer(f"{factor}#q1", value="they leave")
    assert err.value.field == "question"
    # A duplicate answer entry (a replayed or hand-made one) is refused by apply too.
    with pytest.raises(Conflict):
        journal.commit(first)
    assert snapshot_of(journal.state) == before and len(journal.entries) == entries


def dispute_selection(journal: Journal) -> Any:
    door = Candidate(
        id="dispute-door", kind=DISPUTE, opened_at=2, subject="door colour", values=("red", "blue")
    )
    return select_next_question([door])


def test_a_dispute_answer_tells_the_store_to_resolve_it_and_a_closed_one_cannot_be_answered() -> None:
    journal = Journal()
    applied = journal.commit(journal.state.plan_ask(dispute_selection(journal)))
    [edge] = applied.projection.edges
    assert (edge.dst_label, edge.dst) == ("Dispute", "dispute-door")
    qid = applied.result["question"]
    assert applied.result["text"] == "Which is right for door colour: 'blue' or 'red'?"

    with pytest.raises(Conflict):  # one pending question per target
        journal.state.plan_ask(dispute_selection(journal))
    with pytest.raises(UserError) as err:
        journal.state.plan_answer(qid)
    assert err.value.field == "value"
    with pytest.raises(UserError) as err:
        journal.state.plan_answer(qid, value="red", fact={"s": "door"})
    assert err.value.field == "fact"
    with pytest.raises(UserError) as err:
        journal.state.plan_answer(qid, value="red", confirmed=True)
    assert err.value.field == "confirmed"

    before = snapshot_of(journal.state)
    with pytest.raises(Conflict) as err:  # resolved directly by an operator meanwhile
        journal.state.plan_answer(qid, value="red", target_open=False)
    assert err.value.field == "question" and snapshot_of(journal.state) == before

    draft = journal.state.plan_answer(qid, value="red")
    assert draft.payload["effect"] == {
        "resolve_dispute": "dispute-door",
        "key": "door colour",
        "value": "red",
    }
    journal.commit(draft)
    # Disputed again after the resolution: a new question, numbered after the first.
    assert journal.state.plan_ask(dispute_selection(journal)).payload["id"] == "dispute-door#q2"


def test_a_stale_item_answer_confirms_or_retires_it() -> None:
    journal = Journal()
    rent = Candidate(id="item-rent", kind=STALE_ITEM, opened_at=1, subject="office rent", values=("4200",))
    applied = journal.commit(journal.state.plan_ask(select_next_question([rent], preferred="item-rent")))
    [edge] = applied.projection.edges
    assert (edge.dst_label, edge.dst) == ("Item", "item-rent")
    qid = applied.result["question"]

    for kwargs, field in (
        ({}, "confirmed"),
        ({"confirmed": "yes"}, "confirmed"),
        ({"confirmed": True, "value": "4300"}, "value"),
        ({"confirmed": False, "value": ""}, "value"),
    ):
        with pytest.raises(UserError) as err:
            journal.state.plan_answer(qid, **kwargs)
        assert err.value.field == field

    assert journal.state.plan_answer(qid, confirmed=True).payload["effect"] == {"confirm_item": "item-rent"}
    assert journal.state.plan_answer(qid, confirmed=False).payload["effect"] == {"retire_item": "item-rent"}
    retire = journal.state.plan_answer(qid, confirmed=False, value="4300")
    assert retire.payload["effect"] == {"retire_item": "item-rent", "value": "4300"}
    assert retire.payload["answer"] == "4300" and retire.payload["confirmed"] is False
    confirm = journal.state.plan_answer(qid, confirmed=True)
    assert confirm.payload["answer"] == "confirmed"
    props = journal.commit(confirm).projection.nodes[0].props
    assert (props["answered"], props["answer"], props["confirmed"]) == (True, "confirmed", True)


def test_answer_input_errors_name_the_field() -> None:
    journal = Journal()
    _, factor = relocation(journal)
    qid = journal.commit(
        journal.state.plan_ask(select_next_question(journal.state.unknown_candidates(), factor))
    ).result["question"]
    cases: list[tuple[dict[str, Any], str, type[UserError]]] = [
        ({"question": "nope#q1", "value": "x"}, "question", NotFound),
        ({"question": "", "value": "x"}, "question", UserError),
        ({"question": qid}, "value", UserError),
        ({"question": qid, "value": "x", "confirmed": True}, "confirmed", UserError),
        ({"question": qid, "value": "x", "fact": {"o": "y"}}, "fact", UserError),
        ({"question": qid, "value": "x", "fact": ["s"]}, "fact", UserError),
        ({"question": qid, "value": "x", "fact": {"s": ""}}, "fact.s", UserError),
        ({"question": qid, "value": "x", "target_open": "yes"}, "target_open", UserError),
    ]
    before = snapshot_of(journal.state)
    for kwargs, field, kind in cases:
        question = kwargs.pop("question")
        with pytest.raises(kind) as err:
            journal.state.plan_answer(question, **kwargs)
        assert err.value.field == field, kwargs
    assert snapshot_of(journal.state) == before
    named = journal.state.plan_answer(qid, value="80%", fact={"s": "acme", "r": "stays_with_probability"})
    assert named.payload["effect"]["add_fact"] == {
        "s": "acme",
        "r": "stays_with_probability",
        "o": "80%",
        "scope": "office move",
    }


def test_asking_with_nothing_open_or_about_an_undeclared_unknown_is_refused() -> None:
    state = QuestionState()
    with pytest.raises(UserError) as err:
        state.plan_ask(select_next_question([]))
    assert err.value.field == "target"
    ghost = Candidate(id="u-ghost", kind="unknown", opened_at=0, subject="ghost")
    with pytest.raises(NotFound) as err:
        state.plan_ask(select_next_question([ghost]))
    assert err.value.field == "target"
    with pytest.raises(UserError) as err:
        state.plan_ask("u-ghost")  # type: ignore[arg-type]
    assert err.value.field == "selection"


def test_replaying_the_journal_gives_the_same_state_and_projections() -> None:
    journal = Journal()
    _, factor = relocation(journal)
    journal.commit(journal.state.plan_ask(select_next_question(journal.state.unknown_candidates(), "nope")))
    journal.commit(journal.state.plan_ask(select_next_question(journal.state.unknown_candidates(), factor)))
    journal.commit(journal.state.plan_answer(f"{factor}#q1", value="they stay"))
    replayed = QuestionState()
    original = QuestionState()
    for entry in journal.entries:
        assert replayed.apply(entry).projection.as_params() == original.apply(entry).projection.as_params()
    assert snapshot_of(replayed) == snapshot_of(journal.state)
    first = replayed.questions()[0]
    assert (first.path, first.rejected, first.preferred) == (FALLBACK, "missing", "nope")
    assert [q.id for q in replayed.questions(answered=False)] == ["n_relocation_decision#q1"]
    assert replayed.open_question_for(factor) is None
