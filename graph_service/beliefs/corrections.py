"""Operator corrections: wrong, do not infer, inaccurate root, same entity, different entity."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from graph_service.beliefs.change import Change
from graph_service.beliefs.records import Pattern
from graph_service.beliefs.text import signature
from graph_service.beliefs.vocabulary import AGAINST, ORIGIN_CORRECTION, REJECTED

if TYPE_CHECKING:
    from graph_service.beliefs.state import BeliefState

DO_NOT_INFER_JACCARD = Fraction(7, 10)
OPERATOR_WEIGHT = 1.0


def apply_correction(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    kind = payload["kind"]
    {
        "wrong": _wrong,
        "do_not_infer": _do_not_infer,
        "inaccurate": _inaccurate,
        "same_entity": _same_entity,
        "different_entity": _different_entity,
    }[kind](state, change, payload)
    change.result["correction"] = kind


def _wrong(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    """Pin rejected and record the operator's counter-evidence; the history stays."""
    belief = state.beliefs[payload["belief"]]
    operator = change.entry.by
    state.touch(change, belief.id, "correction: wrong")
    belief.pinned = REJECTED
    row = {
        "direction": AGAINST,
        "weight": OPERATOR_WEIGHT,
        "credibility": 1.0,
        "derivation": "operator",
        "family": f"operator:{operator}",
        "root_kind": "operator",
        "root_ids": [],
        "actor": operator,
        "note": payload.get("reason"),
    }
    state.add_row(change, belief.id, row, ORIGIN_CORRECTION, "correction: wrong")
    state.settle(change, [belief.id])
    change.event("belief_retracted", belief=belief.id, by=operator)


def _do_not_infer(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    pattern = Pattern(
        id=state.new_id("dni", change.seq),
        proposition=payload["proposition"],
        signature=signature(payload["proposition"]),
        seq=change.seq,
        by=change.entry.by,
    )
    state.remember_pattern(pattern)
    change.patterns.append(pattern)
    change.event("do_not_infer", pattern=pattern.id, proposition=pattern.proposition)
    change.result["pattern"] = pattern.id


def _inaccurate(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    root_kind, root_id = payload["root_kind"], payload["root_id"]
    state.inaccurate_roots.add((root_kind, root_id))
    change.inaccurate.append((root_kind, root_id))
    state.drop_roots(change, root_kind, [root_id], f"{root_kind} {root_id} marked inaccurate")
    change.event("root_inaccurate", root_kind=root_kind, root_id=root_id)


def _regroup(state: BeliefState, change: Change, moved: tuple[str, ...], reason: str) -> list[str]:
    affected = []
    for subject in moved:
        change.entities[subject] = str(state.entities.entity(subject))  # a subject's entity is never None
        for belief_id in state.beliefs_about(subject):
            belief = state.beliefs[belief_id]
            entity = state.entities.entity(subject)
            if belief.entity != entity:
                state.touch(change, belief_id, reason)
                belief.entity = entity
                affected.append(belief_id)
    return affected


def _same_entity(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    """Merge `other`'s entity into `subject`'s; their beliefs are now compared with each other."""
    moved = state.entities.merge(payload["subject"], payload["other"])
    affected = _regroup(state, change, moved, f"same entity as {payload['subject']}")
    state.settle(change, affected)
    for belief_id in affected:
        state.detect_contradictions(change, belief_id)
    change.event("entities_merged", subject=payload["subject"], other=payload["other"], moved=list(moved))


def _different_entity(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    """Undo the merge joining the two; contradictions that only held across it are withdrawn."""
    moved = state.entities.split(payload["subject"], payload["other"])
    affected = _regroup(state, change, moved, f"different entity from {payload['subject']}")
    partners = []
    for belief_id in affected:
        for partner in state.partners(belief_id):
            if not state.comparable(state.beliefs[belief_id], state.beliefs[partner]):
                state.unlink(change, belief_id, partner, "entities split")
                partners.append(partner)
    state.settle(change, [*affected, *partners])
    change.event("entities_split", subject=payload["subject"], other=payload["other"], moved=list(moved))
