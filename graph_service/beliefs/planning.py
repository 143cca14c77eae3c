"""Planning: validate a request against the current state, without changing it, and say which
single journal entry it becomes. Bad input raises UserError / NotFound / Conflict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_service.beliefs import validation as check
from graph_service.beliefs.text import normalized
from graph_service.beliefs.vocabulary import (
    ACCEPTED,
    CONTESTED,
    EPISTEMIC_KINDS,
    HYPOTHESIS,
    LIKELY,
    REJECTED,
    TENTATIVE,
)
from graph_service.domain import Draft
from graph_service.errors import Conflict, NotFound, UserError

if TYPE_CHECKING:
    from graph_service.beliefs.records import Belief
    from graph_service.beliefs.state import BeliefState

CORRECTION_KINDS = ("wrong", "do_not_infer", "inaccurate", "same_entity", "different_entity")
PINNABLE = (CONTESTED, REJECTED, HYPOTHESIS, TENTATIVE, LIKELY, ACCEPTED)
INACCURATE_ROOTS = ("observation", "item")


def _object(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise UserError("the request must be an object", field="payload")
    return payload


def _belief(state: BeliefState, payload: dict[str, Any], name: str = "belief") -> Belief:
    belief_id = check.text(payload, name)
    assert belief_id is not None
    belief = state.beliefs.get(belief_id)
    if belief is None:
        raise NotFound(f"{name}: no belief {belief_id!r}", field=name)
    return belief


def _reason(payload: dict[str, Any]) -> str | None:
    return check.text(payload, "reason", optional=True)


def _check_roots(state: BeliefState, row: dict[str, Any], where: str) -> None:
    for root in row["root_ids"]:
        if (row["root_kind"], root) in state.inaccurate_roots:
            raise Conflict(
                f"{where}root_ids: {row['root_kind']} {root!r} was marked inaccurate",
                field=where + "root_ids",
            )
        if row["root_kind"] == "belief":
            root_belief = state.beliefs.get(root)
            if root_belief is None:
                raise NotFound(f"{where}root_ids: no belief {root!r}", field=where + "root_ids")
            if root_belief.status == REJECTED:
                raise Conflict(f"{where}root_ids: belief {root!r} is rejected", field=where + "root_ids")


def plan_create(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """belief.create {proposition, epistemic_kind='claim', subject?, evidence?: [row], supersedes?}.

    A proposition an operator said not to infer becomes a `belief.refused` entry instead.
    """
    payload = _object(payload)
    proposition = check.text(payload, "proposition")
    assert proposition is not None
    kind = check.choice(payload, "epistemic_kind", EPISTEMIC_KINDS, default="claim")
    subject = check.text(payload, "subject", optional=True)
    raw_rows = payload.get("evidence", [])
    if not isinstance(raw_rows, list):
        raise UserError("evidence must be a list of evidence rows", field="evidence")
    rows = [check.evidence_row(raw, where=f"evidence[{i}].") for i, raw in enumerate(raw_rows)]
    for i, row in enumerate(rows):
        _check_roots(state, row, f"evidence[{i}].")
    supersedes = None
    if payload.get("supersedes") is not None:
        old = _belief(state, payload, "supersedes")
        if old.superseded_by is not None:
            raise Conflict(
                f"supersedes: {old.id} is already superseded by {old.superseded_by}", field="supersedes"
            )
        supersedes = old.id
    pattern = state.refusing_pattern(proposition)
    if pattern is not None:
        return Draft(
            "belief.refused",
            {"proposition": proposition, "subject": subject, "epistemic_kind": kind, "pattern": pattern.id},
        )
    existing = state.find_belief(proposition, subject)
    if existing is not None and existing.id != supersedes:
        raise Conflict(
            f"proposition: already held as belief {existing.id}; add evidence to it", field="proposition"
        )
    return Draft(
        "belief.create",
        {
            "proposition": proposition,
            "epistemic_kind": kind,
            "subject": subject,
            "evidence": rows,
            "supersedes": supersedes,
        },
    )


def plan_evidence_add(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """evidence.add {belief, direction, weight, credibility, derivation, family | actor | source, ...}."""
    payload = _object(payload)
    belief = _belief(state, payload)
    if belief.superseded_by is not None:
        raise Conflict(f"belief: {belief.id} is superseded by {belief.superseded_by}", field="belief")
    row = check.evidence_row(payload)
    _check_roots(state, row, "")
    if row["root_kind"] == "belief" and belief.id in row["root_ids"]:
        raise UserError("root_ids: a belief cannot rest on itself", field="root_ids")
    return Draft("evidence.add", {"belief": belief.id, **row})


def plan_evidence_retract(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """evidence.retract {evidence, reason?}."""
    payload = _object(payload)
    evidence_id = check.text(payload, "evidence")
    row = state.rows.get(evidence_id or "")
    if row is None:
        raise NotFound(f"evidence: no evidence row {evidence_id!r}", field="evidence")
    if row.retracted:
        raise Conflict(f"evidence: {row.id} is already retracted", field="evidence")
    return Draft("evidence.retract", {"evidence": row.id, "reason": _reason(payload)})


def plan_pin(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """belief.pin {belief, status | null, reason?}: an operator fixes (or frees) the status."""
    payload = _object(payload)
    belief = _belief(state, payload)
    status = payload.get("status")
    if status is not None:
        status = check.choice(payload, "status", PINNABLE)
    if status == belief.pinned:
        raise Conflict(f"status: {belief.id} is already pinned to {status}", field="status")
    return Draft("belief.pin", {"belief": belief.id, "status": status, "reason": _reason(payload)})


def plan_contradict(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """belief.contradict {a, b, reason?}: a proposed (e.g. paraphrase) contradiction."""
    payload = _object(payload)
    a, b = _belief(state, payload, "a"), _belief(state, payload, "b")
    if a.id == b.id:
        raise UserError("b: a belief cannot contradict itself", field="b")
    if state.linked(a.id, b.id):
        raise Conflict(f"b: {a.id} and {b.id} are already linked as contradicting", field="b")
    return Draft("belief.contradict", {"a": a.id, "b": b.id, "reason": _reason(payload)})


def plan_correct(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """belief.correct {kind, ...}: an operator's correction (see CORRECTION_KINDS)."""
    payload = _object(payload)
    kind = check.choice(payload, "kind", CORRECTION_KINDS)
    reason = _reason(payload)
    if kind == "wrong":
        belief = _belief(state, payload)
        if belief.pinned == REJECTED:
            raise Conflict(f"belief: {belief.id} is already pinned rejected", field="belief")
        return Draft("belief.correct", {"kind": kind, "belief": belief.id, "reason": reason})
    if kind == "do_not_infer":
        if payload.get("belief") is not None:
            proposition = _belief(state, payload).proposition
        else:
            proposition = check.text(payload, "proposition")
        return Draft("belief.correct", {"kind": kind, "proposition": proposition, "reason": reason})
    if kind == "inaccurate":
        root_kind = check.choice(payload, "root_kind", INACCURATE_ROOTS)
        root_id = check.text(payload, "root_id")
        if (root_kind, root_id) in state.inaccurate_roots:
            raise Conflict(f"root_id: {root_kind} {root_id!r} is already marked inaccurate", field="root_id")
        return Draft(
            "belief.correct", {"kind": kind, "root_kind": root_kind, "root_id": root_id, "reason": reason}
        )
    subject, other = check.text(payload, "subject"), check.text(payload, "other")
    if subject == other:
        raise UserError("other: must name a different subject", field="other")
    same = state.entities.same(subject, other)
    if kind == "same_entity" and same:
        raise Conflict(f"other: {subject!r} and {other!r} are already one entity", field="other")
    if kind == "different_entity" and not same:
        raise Conflict(f"other: {subject!r} and {other!r} are not merged", field="other")
    return Draft("belief.correct", {"kind": kind, "subject": subject, "other": other, "reason": reason})


def plan_associate(state: BeliefState, payload: dict[str, Any]) -> Draft:
    """belief.associate {observations: [{id, at, summary, notable?, hypothetical?, question?, request?,
    speaker?, family?, credibility?}], window_ms, subject?}."""
    payload = _object(payload)
    window = check.whole(payload, "window_ms", minimum=1)
    subject = check.text(payload, "subject", optional=True)
    raw = payload.get("observations")
    if not isinstance(raw, list) or len(raw) < 2:
        raise UserError("observations must be a list of at least two observations", field="observations")
    cues: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, obs in enumerate(raw):
        where = f"observations[{i}]."
        if not isinstance(obs, dict):
            raise UserError(f"observations[{i}] must be an object", field=f"observations[{i}]")
        obs_id = check.text(obs, "id", where=where)
        assert obs_id is not None
        if obs_id in seen:
            raise UserError(f"{where}id {obs_id!r} appears twice", field=where + "id")
        seen.add(obs_id)
        if ("observation", obs_id) in state.inaccurate_roots:
            raise Conflict(f"{where}id: observation {obs_id!r} was marked inaccurate", field=where + "id")
        cues.append(
            {
                "id": obs_id,
                "at": check.whole(obs, "at", where=where),
                "summary": check.text(obs, "summary", where=where),
                "notable": check.flag(obs, "notable", where=where, default=True),
                "hypothetical": check.flag(obs, "hypothetical", where=where),
                "question": check.flag(obs, "question", where=where),
                "request": check.flag(obs, "request", where=where),
                "speaker": check.text(obs, "speaker", where=where, optional=True),
                "family": check.text(obs, "family", where=where, optional=True),
                "credibility": check.unit(obs, "credibility", where=where, default=1.0),
            }
        )
    return Draft("belief.associate", {"observations": cues, "window_ms": window, "subject": subject})


PLANNERS = {
    "belief.create": plan_create,
    "evidence.add": plan_evidence_add,
    "evidence.retract": plan_evidence_retract,
    "belief.pin": plan_pin,
    "belief.contradict": plan_contradict,
    "belief.correct": plan_correct,
    "belief.associate": plan_associate,
}


def plan(state: BeliefState, op: str, payload: dict[str, Any]) -> Draft:
    """The entry a client request becomes; `op` is one of PLANNERS."""
    planner = PLANNERS.get(op)
    if planner is None:
        raise UserError(f"op: unknown belief operation {op!r}", field="op")
    return planner(state, payload)


def duplicate_key(proposition: str, subject: str | None) -> tuple[str, str | None]:
    return normalized(proposition), subject
