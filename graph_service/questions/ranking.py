"""The open targets ranked, as plain rows: what `openQuestions` pages, now or as of a position. Pure."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from graph_service.questions.select import select_next_question
from graph_service.questions.state import QuestionState
from graph_service.questions.targets import KnowledgeTargets, TargetView
from graph_service.questions.text import formulate


def open_question_rows(knowledge: KnowledgeTargets, questions: QuestionState) -> list[dict[str, Any]]:
    """Every open target in the order select_next_question ranks them, each as {target, target_kind,
    subject, parent, text, score (Score's fields), asked (the question open on it, or None)}; the
    knowledge read through `knowledge` (a whole state's StateTargets, or the graph's)."""
    candidates = {c.id: c for c in TargetView(knowledge, questions).candidates()}
    rows = []
    for s in select_next_question(candidates.values()).ranking:
        c = candidates[s.id]
        pending = questions.open_question_for(c.id)
        rows.append({"target": c.id, "target_kind": c.kind, "subject": c.subject, "parent": c.parent,
                     "text": formulate(c), "score": asdict(s), "asked": pending.id if pending else None})
    return rows
