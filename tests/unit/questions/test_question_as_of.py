"""The question state as of a position, rebuilt from Question and Unknown node histories
(graph_service.questions.as_of): what each read of QuestionState answers then, and an error, never a
guess, where the history does not reach."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graph_service.history import HistoryMissing
from graph_service.questions.as_of import question_state_at

ASKED = {"target": "u-1", "target_kind": "unknown", "subject": "the colour", "parent": "the paint job",
         "text": "What is the colour?", "asked_at": 4, "asked_by": "agent", "path": "fallback", "preferred": None,
         "rejected": None, "materiality": 1, "answered": False, "answer": None, "answered_at": None}
DECLARED = {"situation": "the paint job", "factor": "the colour", "text": "What is the colour?", "parent": None,
            "declared_at": 2, "declared_by": "ann", "status": "open", "answer": None, "answered_at": None}


def write(label: str, node: str, seq: int, changes: dict[str, Any] | None) -> dict[str, Any]:
    return {"label": label, "id": node, "seq": seq, "op": "x", "by": "ann", "at": seq,
            "changes": None if changes is None else json.dumps(changes)}


HISTORY = [
    write("Unknown", "u-1", 2, DECLARED),
    write("Question", "u-1#q1", 4, ASKED),
    write("Question", "u-1#q1", 6, {"answered": True, "answer": "red", "confirmed": None, "answered_at": 6,
                                    "answered_by": "bob"}),
    write("Unknown", "u-1", 6, {"status": "answered", "answer": "red", "answered_at": 6}),
]
AFFECTS = [{"unknown": "u-1", "label": "Item", "target": "k-2", "since": 2},
           {"unknown": "u-1", "label": "Snapshot", "target": "s-1", "since": 2},
           {"unknown": "u-1", "label": "Item", "target": "k-1", "since": 2}]


def test_the_state_as_of_a_position_holds_what_was_declared_asked_and_answered_by_then() -> None:
    before = question_state_at(HISTORY, AFFECTS, 1)
    assert before.unknowns() == [] and before.questions() == []
    declared = question_state_at(HISTORY, AFFECTS, 3)
    [unknown] = declared.unknowns()
    assert (unknown.affects, unknown.decisions, unknown.answered) == (("k-1", "k-2"), ("s-1",), False)
    assert declared.questions() == []
    asked = question_state_at(HISTORY, AFFECTS, 5)
    [question] = asked.questions(answered=False)
    assert (question.parent, question.by, question.answered) == ("the paint job", "agent", False)
    assert asked.open_question_for("u-1") == question
    answered = question_state_at(HISTORY, AFFECTS, 6)
    assert answered.open_question_for("u-1") is None
    assert answered.question("u-1#q1").answered_by == "bob"  # type: ignore[union-attr]
    assert answered.unknown("u-1").answer == "red"  # type: ignore[union-attr]
    assert [c.resolved for c in answered.unknown_candidates()] == [True]


def test_a_history_that_does_not_reach_is_an_error_naming_as_of() -> None:
    with pytest.raises(HistoryMissing) as missing:
        question_state_at([write("Question", "u-1#q1", 4, None)], [], 5)
    assert missing.value.field == "asOf"
    with pytest.raises(HistoryMissing):  # asked before its node kept its parent
        question_state_at([write("Question", "u-1#q1", 4, {k: v for k, v in ASKED.items() if k != "parent"})], [], 5)
    with pytest.raises(HistoryMissing):  # an AFFECTS edge from before edges kept their first position
        question_state_at(HISTORY, [{**AFFECTS[0], "since": None}], 5)
