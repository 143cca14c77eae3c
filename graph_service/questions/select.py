"""Choosing which open question to ask next: a valid preference first, else the most material.

A caller (often a model) may name the target it thinks matters. That preference carries the
caller's knowledge of *why* the question matters, which no structural score has, so it is
honoured whenever it is structurally sound: the node exists or is added by the same request,
carries a question, and is still unresolved after the write. Otherwise the pick falls back to a
deterministic ranking: materiality, then age (older first), then id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graph_service.errors import UserError
from graph_service.questions.candidates import Candidate, Score, score
from graph_service.questions.text import formulate

PREFERRED = "preferred"
FALLBACK = "fallback"

MISSING = "missing"
RESOLVED = "resolved"
NOT_QUESTION_BEARING = "not_question_bearing"
REJECTION_REASONS: tuple[str, ...] = (MISSING, RESOLVED, NOT_QUESTION_BEARING)


@dataclass(frozen=True, slots=True)
class Selection:
    """The next question and how it was chosen.

    `path` is 'preferred' when the caller's target was honoured and 'fallback' otherwise;
    `rejected` says why a named preference was not honoured (missing, resolved,
    not_question_bearing) and is None when it was honoured or none was named. `ranking` is every
    open candidate in fallback order, whichever path chose. `target`, `score` and `text` are None
    when nothing is open.
    """

    target: Candidate | None
    path: str
    text: str | None
    score: Score | None
    ranking: tuple[Score, ...]
    preferred: str | None = None
    rejected: str | None = None

    def as_dict(self) -> dict[str, object]:
        """Plain data for the API and the journal."""
        return {
            "target": self.target.id if self.target else None,
            "target_kind": self.target.kind if self.target else None,
            "path": self.path,
            "text": self.text,
            "score": self.score.as_dict() if self.score else None,
            "ranking": [s.as_dict() for s in self.ranking],
            "preferred": self.preferred,
            "rejected": self.rejected,
        }


def _pool(candidates: Iterable[Candidate], added: Iterable[Candidate]) -> dict[str, Candidate]:
    pool: dict[str, Candidate] = {}
    for where, group in (("candidates", candidates), ("added", added)):
        for candidate in group:
            if not isinstance(candidate, Candidate):
                raise UserError(
                    f"{where} must hold Candidate records, got {type(candidate).__name__}", field=where
                )
            known = pool.setdefault(candidate.id, candidate)
            # First-wins would make the answer depend on input order; two different records
            # for one id are a caller bug, so say so.
            if known != candidate:
                raise UserError(f"two different records for target {candidate.id!r}", field=where)
    return pool


def _rejection(preferred: str, pool: Mapping[str, Candidate], others: Mapping[str, str] | None) -> str | None:
    candidate = pool.get(preferred)
    if candidate is None:
        return NOT_QUESTION_BEARING if others and preferred in others else MISSING
    return RESOLVED if candidate.resolved else None


def select_next_question(
    candidates: Iterable[Candidate],
    preferred: str | None = None,
    added: Iterable[Candidate] = (),
    *,
    others: Mapping[str, str] | None = None,
) -> Selection:
    """Pick the next question from the state after the write.

    `candidates` are the question-bearing nodes already stored (resolved ones may be included and
    are never picked); `added` those the same request creates. `others` maps ids of existing nodes
    that carry no question (a plain item, a decision snapshot) to what they are, so that naming one
    is rejected as not_question_bearing rather than missing. The result does not depend on the
    order of either input.
    """
    if preferred is not None and (not isinstance(preferred, str) or not preferred.strip()):
        raise UserError("preferred must be a non-empty target id", field="preferred")
    pool = _pool(candidates, added)
    ranking = tuple(sorted((score(c) for c in pool.values() if not c.resolved), key=lambda s: s.rank_key))

    rejected = _rejection(preferred, pool, others) if preferred is not None else None
    if preferred is not None and rejected is None:
        chosen, path = pool[preferred], PREFERRED
    elif ranking:
        chosen, path = pool[ranking[0].id], FALLBACK
    else:
        return Selection(None, FALLBACK, None, None, ranking, preferred, rejected)
    return Selection(chosen, path, formulate(chosen), score(chosen), ranking, preferred, rejected)
