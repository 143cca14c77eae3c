"""The question side of the store as of a journal position, rebuilt from the graph's history. Pure.

`question_state_at(history, affects, position)` gives a `QuestionState` holding exactly the unknowns
declared and the questions asked by `position`, each as it stood then (answered or not, and how), so
every read of that state answers as a replay of the journal up to `position` would: `questions()`,
`unknowns()`, and what `TargetView(StateTargets(knowledge), questions)` and `open_question_for(target)` read from the
question side (`unknowns(answered=False)`, `unknown_candidates()`, `unknown(id)`, `question(id)`,
`questions_about(target)`). To rank the open targets as of `position` (`openQuestions(asOf)`), pair it
with the knowledge state as of the same position: `TargetView(StateTargets(knowledge_at_n), question_state_at(...))`.

Its inputs are what `cypher/questions_history_upto.cypher` (every Question and Unknown node's writes up
to the position, with what each changed) and `cypher/unknown_affects_upto.cypher` (what each unknown
affects: (:Unknown)-[:AFFECTS]->(:Item|:Snapshot)) return.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graph_service.history import HistoryMissing, NodeState, histories, props_at
from graph_service.questions.state import QuestionRecord, QuestionState, UnknownRecord


def question_record(question_id: str, p: dict[str, Any]) -> QuestionRecord:
    """A Question node's properties (as projected by QuestionState) as the record they were made from."""
    return QuestionRecord(
        id=question_id,
        target=p["target"],
        target_kind=p["target_kind"],
        subject=p["subject"],
        parent=p.get("parent"),
        text=p["text"],
        path=p["path"],
        preferred=p.get("preferred"),
        rejected=p.get("rejected"),
        asked_at=p["asked_at"],
        by=p["asked_by"],
        answered=bool(p.get("answered")),
        answer=p.get("answer"),
        answered_at=p.get("answered_at"),
        answered_by=p.get("answered_by"),
    )


def unknown_record(unknown_id: str, p: dict[str, Any], affects: Iterable[str], decisions: Iterable[str]
                   ) -> UnknownRecord:
    """An Unknown node's properties and AFFECTS targets as the record they were made from (its affects
    and decisions sorted, as the declaration's payload keeps them)."""
    return UnknownRecord(
        id=unknown_id,
        situation=p["situation"],
        factor=p["factor"],
        text=p["text"],
        parent=p.get("parent"),
        affects=tuple(sorted(set(affects))),
        decisions=tuple(sorted(set(decisions))),
        declared_at=p["declared_at"],
        answered=p.get("status") == "answered",
        answer=p.get("answer"),
        answered_at=p.get("answered_at"),
    )


def _parent_kept(states: list[NodeState], position: int) -> None:
    # A question asked before its node kept `parent` would read back with none: an error, not a guess.
    if states[0].changes is not None and "parent" not in states[0].changes:
        raise HistoryMissing(position)


def question_state_at(history: Iterable[dict[str, Any]], affects: Iterable[dict[str, Any]], position: int
                      ) -> QuestionState:
    """The question state a replay of the journal up to `position` holds, from the Question and Unknown
    nodes' histories (rows of label, id, seq, op, by, at, changes) and the unknowns' AFFECTS edges (rows
    of unknown, label, target, since). HistoryMissing when a history does not reach `position`."""
    targets: dict[str, dict[str, list[str]]] = {}
    for row in affects:
        if row["since"] is None:  # an edge written before edges kept their first position
            raise HistoryMissing(position)
        if row["since"] <= position:
            targets.setdefault(row["unknown"], {"Item": [], "Snapshot": []})[row["label"]].append(row["target"])
    unknowns: list[UnknownRecord] = []
    questions: list[QuestionRecord] = []
    for (label, node_id), states in sorted(histories(history).items()):
        props = props_at(states, position)
        if props is None:
            continue
        if label == "Question":
            _parent_kept(states, position)
            questions.append(question_record(node_id, props))
        elif label == "Unknown":
            found = targets.get(node_id, {"Item": [], "Snapshot": []})
            unknowns.append(unknown_record(node_id, props, found["Item"], found["Snapshot"]))
    return QuestionState.of(unknowns, questions)
