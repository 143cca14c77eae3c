"""What to ask a person next (SPEC 3.7): open targets, selection, question text, and the
journalled asking and answering. Pure: standard library and the package's contracts only."""

from graph_service.questions.candidates import (
    CANDIDATE_KINDS,
    DISPUTE,
    MATERIALITY_WEIGHTS,
    STALE_ITEM,
    TARGET_LABELS,
    UNKNOWN,
    Candidate,
    Score,
    score,
)
from graph_service.questions.select import (
    FALLBACK,
    MISSING,
    NOT_QUESTION_BEARING,
    PREFERRED,
    REJECTION_REASONS,
    RESOLVED,
    Selection,
    select_next_question,
)
from graph_service.questions.state import (
    ANSWER_QUESTION,
    ASK_QUESTION,
    DECLARE_UNKNOWN,
    OPS,
    QuestionRecord,
    QuestionState,
    UnknownRecord,
)
from graph_service.questions.text import formulate

__all__ = [
    "ANSWER_QUESTION",
    "ASK_QUESTION",
    "CANDIDATE_KINDS",
    "DECLARE_UNKNOWN",
    "DISPUTE",
    "FALLBACK",
    "MATERIALITY_WEIGHTS",
    "MISSING",
    "NOT_QUESTION_BEARING",
    "OPS",
    "PREFERRED",
    "REJECTION_REASONS",
    "RESOLVED",
    "STALE_ITEM",
    "TARGET_LABELS",
    "UNKNOWN",
    "Candidate",
    "QuestionRecord",
    "QuestionState",
    "Score",
    "Selection",
    "UnknownRecord",
    "formulate",
    "score",
    "select_next_question",
]
