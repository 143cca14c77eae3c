"""Declared unknowns and the questions asked and answered about open targets, as a pure domain.

Three journal operations:

- ``unknown.declare`` ``{id, situation, factor, text, parent, affects, decisions}``: an unresolved
  question inside a situation; ``affects`` are item ids and ``decisions`` snapshot ids it bears on.
- ``question.ask`` ``{id, target, target_kind, subject, parent, text, path, preferred, rejected,
  materiality, declare?}``: a question was put to a person (usually from a `Selection`); with
  ``declare`` (an ``unknown.declare`` payload) the unknown is declared by the same entry, first.
- ``question.answer`` ``{question, answer, confirmed, effect}``: the person's answer, and the
  `effect` the knowledge core must carry out next (see `graph_service.questions.answers`).

Planning (`plan_*`) validates against the current state without changing it and returns a
`Draft`, or raises UserError / NotFound / Conflict naming the field. `apply` changes the state
and returns the graph projection; the answer's `effect` is also its result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from graph_service.domain import Applied, Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import Entry, canonical_json
from graph_service.projection import Projection
from graph_service.questions.answers import answer_effect, clean_text
from graph_service.questions.candidates import CANDIDATE_KINDS, TARGET_LABELS, UNKNOWN, Candidate
from graph_service.questions.select import FALLBACK, PREFERRED, REJECTION_REASONS, Selection

DECLARE_UNKNOWN = "unknown.declare"
ASK_QUESTION = "question.ask"
ANSWER_QUESTION = "question.answer"
OPS: tuple[str, ...] = (DECLARE_UNKNOWN, ASK_QUESTION, ANSWER_QUESTION)


@dataclass(frozen=True, slots=True)
class UnknownRecord:
    """A declared unknown: what is not known (`factor`, `text`), where, and what it bears on."""

    id: str
    situation: str
    factor: str
    text: str
    parent: str | None
    affects: tuple[str, ...]
    decisions: tuple[str, ...]
    declared_at: int
    answered: bool = False
    answer: str | None = None
    answered_at: int | None = None


@dataclass(frozen=True, slots=True)
class QuestionRecord:
    """A question put to a person about one target, and its answer once given."""

    id: str
    target: str
    target_kind: str
    subject: str
    parent: str | None
    text: str
    path: str
    preferred: str | None
    rejected: str | None
    asked_at: int
    by: str
    answered: bool = False
    answer: str | None = None
    answered_at: int | None = None
    answered_by: str | None = None


def _optional_text(value: object, field: str) -> str | None:
    return None if value is None else clean_text(value, field)


def _ids(values: object, field: str) -> list[str]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise UserError(f"{field} must be a list of ids", field=field)
    # Sorted and de-duplicated: the same declaration always gives the same payload and id.
    return sorted({clean_text(v, field) for v in values})


def _unknown_record(p: Mapping[str, Any], at: int) -> UnknownRecord:
    return UnknownRecord(
        id=p["id"],
        situation=p["situation"],
        factor=p["factor"],
        text=p["text"],
        parent=p.get("parent"),
        affects=tuple(p.get("affects", ())),
        decisions=tuple(p.get("decisions", ())),
        declared_at=at,
    )


def _unknown_id(situation: str, factor: str, text: str) -> str:
    digest = hashlib.sha256(canonical_json([situation, factor, text]).encode("utf-8")).hexdigest()
    return f"unknown-{digest[:16]}"


class QuestionState:
    """Unknowns and questions, rebuilt by applying journal entries in order."""

    def __init__(self) -> None:
        self._unknowns: dict[str, UnknownRecord] = {}
        self._questions: dict[str, QuestionRecord] = {}
        # The ids of the questions asked about each target, in the order asked: what a ranking reads of the
        # questions for each of its targets, and an ask for its own, without looking at every question.
        self._about: dict[str, list[str]] = {}
        self._open_about: dict[str, str] = {}  # target: the question about it awaiting an answer

    @classmethod
    def of(cls, unknowns: Iterable[UnknownRecord], questions: Iterable[QuestionRecord]) -> QuestionState:
        """The state holding exactly these records, as applying the entries that made them leaves it
        (graph_service.questions.as_of builds them from the graph as of a journal position)."""
        state = cls()
        state._unknowns = {u.id: u for u in unknowns}
        for question in sorted(questions, key=lambda q: (q.asked_at, q.id)):
            state._put(question)
        return state

    def _put(self, question: QuestionRecord) -> None:
        """Keep a question asked, or its answered record in place of the asked one."""
        if question.id not in self._questions:
            self._about.setdefault(question.target, []).append(question.id)
        if question.answered:
            if self._open_about.get(question.target) == question.id:
                del self._open_about[question.target]
        else:
            self._open_about[question.target] = question.id
        self._questions[question.id] = question

    def ranking_view(self) -> QuestionState:
        """A state of its own holding what ranking the open targets reads (every declared unknown and the
        questions awaiting an answer), for a ranking that runs while this state goes on changing: it copies
        the unknowns and the open questions, not every question asked."""
        return QuestionState.of(list(self._unknowns.values()),
                                [self._questions[q] for q in self._open_about.values()])

    # --- reads -----------------------------------------------------------------------------

    def handles(self, op: str) -> bool:
        return op in OPS

    def unknown(self, unknown_id: str) -> UnknownRecord | None:
        return self._unknowns.get(unknown_id)

    def _declared(self, unknown_id: str) -> UnknownRecord:
        """An unknown a question was asked about: declared, or the state is broken."""
        found = self.unknown(unknown_id)
        if found is None:
            raise RuntimeError(f"a question names unknown {unknown_id!r}, which was never declared")
        return found

    def _keep_unknown(self, unknown: UnknownRecord) -> None:
        self._unknowns[unknown.id] = unknown

    def question(self, question_id: str) -> QuestionRecord | None:
        return self._questions.get(question_id)

    def questions(self, *, answered: bool | None = None) -> list[QuestionRecord]:
        """Questions in the order they were asked, optionally only (un)answered ones."""
        found = sorted(self._questions.values(), key=lambda q: (q.asked_at, q.id))
        return [q for q in found if answered is None or q.answered == answered]

    def unknowns(self, *, answered: bool | None = None) -> list[UnknownRecord]:
        """Declared unknowns in the order they were declared, optionally only (un)answered ones."""
        found = sorted(self._unknowns.values(), key=lambda u: (u.declared_at, u.id))
        return [u for u in found if answered is None or u.answered == answered]

    def questions_about(self, target: str) -> list[QuestionRecord]:
        """Every question ever asked about `target`, in the order asked."""
        return [self._questions[q] for q in self._about.get(target, ())]

    def open_question_for(self, target: str) -> QuestionRecord | None:
        """The question asked about `target` that still awaits an answer, if any."""
        question = self._open_about.get(target)
        return None if question is None else self._questions[question]

    def unknown_candidates(self) -> list[Candidate]:
        """Every declared unknown as a selection candidate (answered ones marked resolved).

        Materiality counts what the unknown itself names: affected items as dependents, affected
        decisions as decisions. A store that knows more (snapshots reading those items) may
        `dataclasses.replace` the counts.
        """
        return [self._candidate(u) for u in sorted(self._unknowns.values(), key=lambda u: u.id)]

    def declared_candidate(self, declaration: Draft, at: int) -> Candidate:
        """The candidate a planned `unknown.declare` becomes once applied at journal position `at`."""
        if not isinstance(declaration, Draft) or declaration.op != DECLARE_UNKNOWN:
            raise UserError("declaration must be a planned unknown.declare", field="declare")
        return self._candidate(_unknown_record(declaration.payload, at))

    def _candidate(self, unknown: UnknownRecord) -> Candidate:
        parent = self.unknown(unknown.parent) if unknown.parent else None
        context = parent.factor if parent else (unknown.parent or unknown.situation)
        return Candidate(
            id=unknown.id,
            kind=UNKNOWN,
            opened_at=unknown.declared_at,
            subject=unknown.factor,
            parent=context,
            detail=unknown.text,
            dependents=len(unknown.affects),
            decisions=len(unknown.decisions),
            resolved=unknown.answered,
        )

    # --- planning ----------------------------------------------------------------------------

    def plan_declare_unknown(
        self,
        situation: str,
        text: str,
        *,
        factor: str | None = None,
        affects: Iterable[str] = (),
        decisions: Iterable[str] = (),
        parent: str | None = None,
        id: str | None = None,
    ) -> Draft:
        """Declare an unresolved question inside `situation`.

        `factor` names what is unknown (defaults to `text`); `affects` are item ids and
        `decisions` snapshot ids it bears on (the store checks they exist); `parent` is the
        decision or unknown it is a factor of. Without `id` the id is derived from situation,
        factor and text, so declaring the same unknown twice is a Conflict.
        """
        situation = clean_text(situation, "situation")
        text = clean_text(text, "text")
        factor = clean_text(factor, "factor") if factor is not None else text
        parent = _optional_text(parent, "parent")
        unknown_id = clean_text(id, "id") if id is not None else _unknown_id(situation, factor, text)
        if self.unknown(unknown_id) is not None:
            raise Conflict(f"unknown {unknown_id!r} is already declared", field="id")
        if parent == unknown_id:
            raise UserError("an unknown cannot be its own parent", field="parent")
        payload = {
            "id": unknown_id,
            "situation": situation,
            "factor": factor,
            "text": text,
            "parent": parent,
            "affects": _ids(affects, "affects"),
            "decisions": _ids(decisions, "decisions"),
        }
        return Draft(DECLARE_UNKNOWN, payload)

    def plan_ask(self, selection: Selection, declared: Draft | None = None) -> Draft:
        """Record that the selected question was put to a person.

        `declared` is a planned `unknown.declare` the same entry carries (applied first), so a
        question may be about an unknown the request adds. Conflict when the target is already
        resolved or a question about it awaits an answer (the store should then return
        `open_question_for(target)` instead).
        """
        if not isinstance(selection, Selection):
            raise UserError("selection must be a Selection", field="selection")
        if declared is not None and (not isinstance(declared, Draft) or declared.op != DECLARE_UNKNOWN):
            raise UserError("declared must be a planned unknown.declare", field="declare")
        if declared is not None and self.unknown(declared.payload["id"]) is not None:
            raise Conflict(f"unknown {declared.payload['id']!r} is already declared", field="id")
        target = selection.target
        if target is None or selection.text is None:
            raise UserError("there is no open question to ask", field="target")
        if target.resolved:
            raise Conflict(f"{target.kind} {target.id!r} is already resolved", field="target")
        if target.kind == UNKNOWN and not (declared is not None and declared.payload["id"] == target.id):
            unknown = self.unknown(target.id)
            if unknown is None:
                raise NotFound(f"unknown {target.id!r} was never declared", field="target")
            if unknown.answered:
                raise Conflict(f"unknown {target.id!r} is already answered", field="target")
        pending = self.open_question_for(target.id)
        if pending is not None:
            raise Conflict(f"question {pending.id!r} about {target.id!r} awaits an answer", field="target")
        asked_before = len(self.questions_about(target.id))
        payload = {
            "id": f"{target.id}#q{asked_before + 1}",
            "target": target.id,
            "target_kind": target.kind,
            "subject": target.subject,
            "parent": target.parent,
            "text": selection.text,
            "path": selection.path,
            "preferred": selection.preferred,
            "rejected": selection.rejected,
            "materiality": selection.score.materiality if selection.score else 0,
        }
        if declared is not None:
            payload["declare"] = dict(declared.payload)
        return Draft(ASK_QUESTION, payload)

    def plan_answer(
        self,
        question: str,
        *,
        value: str | None = None,
        confirmed: bool | None = None,
        fact: Mapping[str, str] | None = None,
        target_open: bool = True,
    ) -> Draft:
        """Answer an open question; the payload's `effect` says what the knowledge core does next.

        A dispute needs `value` (the right value); a stale item needs `confirmed` (still true or
        not; with False an optional `value` says what holds now); an unknown needs `value`, and
        `fact` may name the fact's `s` and `r` (default: the unknown's factor, "is").
        `target_open` is the store's word that a dispute or stale item still awaits an answer
        (it may have been resolved or reconfirmed directly); False makes the answer a Conflict.
        """
        record = self._open_question(clean_text(question, "question"))
        if not isinstance(target_open, bool):
            raise UserError("target_open must be a boolean", field="target_open")
        if not target_open:
            raise Conflict(f"{record.target_kind} {record.target!r} is no longer open", field="question")
        unknown = self.unknown(record.target) if record.target_kind == UNKNOWN else None
        answer, effect = answer_effect(record, unknown, value=value, confirmed=confirmed, fact=fact)
        payload = {"question": record.id, "answer": answer, "confirmed": confirmed, "effect": effect}
        return Draft(ANSWER_QUESTION, payload)

    def _open_question(self, question_id: str) -> QuestionRecord:
        record = self.question(question_id)
        if record is None:
            raise NotFound(f"no question {question_id!r}", field="question")
        if record.answered:
            raise Conflict(f"question {question_id!r} is already answered", field="question")
        if record.target_kind == UNKNOWN and self._declared(record.target).answered:
            raise Conflict(f"unknown {record.target!r} is already answered", field="question")
        return record

    # --- applying ----------------------------------------------------------------------------

    def apply(self, entry: Entry) -> Applied:
        """Apply one committed entry; a payload planning would have refused raises and changes nothing."""
        if entry.op == DECLARE_UNKNOWN:
            return self._apply_declare(entry)
        if entry.op == ASK_QUESTION:
            return self._apply_ask(entry)
        if entry.op == ANSWER_QUESTION:
            return self._apply_answer(entry)
        raise ValueError(f"QuestionState does not handle {entry.op!r}")

    def _apply_declare(self, entry: Entry) -> Applied:
        p = entry.payload
        if self.unknown(p["id"]) is not None:
            raise Conflict(f"unknown {p['id']!r} is already declared", field="id")
        unknown = _unknown_record(p, entry.seq)
        self._keep_unknown(unknown)
        projection = Projection()
        projection.node(
            "Unknown",
            unknown.id,
            situation=unknown.situation,
            factor=unknown.factor,
            text=unknown.text,
            parent=unknown.parent,
            declared_at=unknown.declared_at,
            declared_by=entry.by,
            status="open",
            answer=None,
            answered_at=None,
        )
        for item in unknown.affects:
            projection.edge("AFFECTS", "Unknown", unknown.id, "Item", item)
        for snapshot in unknown.decisions:
            projection.edge("AFFECTS", "Unknown", unknown.id, "Snapshot", snapshot)
        return Applied(projection, {"unknown": unknown.id})

    def _apply_ask(self, entry: Entry) -> Applied:
        p = entry.payload
        declared = p.get("declare")
        if self.question(p["id"]) is not None:
            raise Conflict(f"question {p['id']!r} was already asked", field="id")
        if p["target_kind"] not in CANDIDATE_KINDS:
            raise UserError(f"target_kind {p['target_kind']!r} bears no question", field="target_kind")
        if p["path"] not in (PREFERRED, FALLBACK) or p.get("rejected") not in (None, *REJECTION_REASONS):
            raise UserError("path or rejected is not a known selection outcome", field="path")
        if declared is not None and self.unknown(declared["id"]) is not None:
            raise Conflict(f"unknown {declared['id']!r} is already declared", field="id")
        declares_target = declared is not None and declared["id"] == p["target"]
        if p["target_kind"] == UNKNOWN and not declares_target and self.unknown(p["target"]) is None:
            raise NotFound(f"unknown {p['target']!r} was never declared", field="target")
        if p["target_kind"] == UNKNOWN and not declares_target and self._declared(p["target"]).answered:
            raise Conflict(f"unknown {p['target']!r} is already answered", field="target")
        if self.open_question_for(p["target"]) is not None:
            raise Conflict(f"a question about {p['target']!r} awaits an answer", field="target")
        # Every check is done: declaring first cannot leave the entry half applied.
        projection = Projection()
        if declared is not None:
            projection.extend(self._apply_declare(replace(entry, op=DECLARE_UNKNOWN, payload=declared)).projection)
        record = QuestionRecord(
            id=p["id"],
            target=p["target"],
            target_kind=p["target_kind"],
            subject=p["subject"],
            parent=p.get("parent"),
            text=p["text"],
            path=p["path"],
            preferred=p.get("preferred"),
            rejected=p.get("rejected"),
            asked_at=entry.seq,
            by=entry.by,
        )
        self._put(record)
        projection.node(
            "Question",
            record.id,
            target=record.target,
            target_kind=record.target_kind,
            subject=record.subject,
            parent=record.parent,  # kept so the question as of a past position can be read from the graph
            text=record.text,
            asked_at=record.asked_at,
            asked_by=record.by,
            path=record.path,
            preferred=record.preferred,
            rejected=record.rejected,
            materiality=p.get("materiality", 0),
            answered=False,
            answer=None,
            answered_at=None,
        )
        projection.edge("ASKS_ABOUT", "Question", record.id, TARGET_LABELS[record.target_kind], record.target)
        result = {"question": record.id, "text": record.text}
        if declared is not None:
            result["unknown"] = declared["id"]
        return Applied(projection, result)

    def _apply_answer(self, entry: Entry) -> Applied:
        p = entry.payload
        record = self._open_question(p["question"])
        answered = replace(
            record, answered=True, answer=p["answer"], answered_at=entry.seq, answered_by=entry.by
        )
        self._put(answered)
        projection = Projection()
        projection.node(
            "Question",
            record.id,
            answered=True,
            answer=answered.answer,
            confirmed=p.get("confirmed"),
            answered_at=entry.seq,
            answered_by=entry.by,
        )
        if record.target_kind == UNKNOWN:
            unknown = replace(
                self._declared(record.target), answered=True, answer=answered.answer, answered_at=entry.seq
            )
            self._keep_unknown(unknown)
            projection.node(
                "Unknown", unknown.id, status="answered", answer=unknown.answer, answered_at=entry.seq
            )
        return Applied(projection, {"question": record.id, "effect": p["effect"]})
