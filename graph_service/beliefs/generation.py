"""Applying an association request: proposals become hypothesis beliefs with their alternatives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph_service.beliefs.association import ASSOCIATION_WEIGHT, Cue, propose
from graph_service.beliefs.change import Change
from graph_service.beliefs.vocabulary import FOR, ORIGIN_ASSOCIATION
from graph_service.projection import EdgeMerge

if TYPE_CHECKING:
    from graph_service.beliefs.state import BeliefState


def apply_association(state: BeliefState, change: Change, payload: dict[str, Any]) -> None:
    """Each proposal not refused (do not infer) nor already held becomes a weakly supported
    hypothesis with two alternative hypotheses; refusals are reported in the entry's result."""
    cues = [Cue.from_payload(raw) for raw in payload["observations"]]
    proposals, refusals = propose(cues, payload["window_ms"])
    refused = [r.to_dict() for r in refusals]
    proposed = []
    subject = payload.get("subject")
    for proposal in proposals:
        pair = [proposal.cause.id, proposal.effect.id]
        pattern = state.refusing_pattern(proposal.proposition)
        existing = state.find_belief(proposal.proposition, subject)
        if pattern is not None:
            refused.append({"observations": pair, "reason": f"do not infer ({pattern.id})"})
            change.event("inference_refused", proposition=proposal.proposition, pattern=pattern.id)
            continue
        if existing is not None:
            refused.append({"observations": pair, "reason": f"already proposed as {existing.id}"})
            continue
        main = state.create_belief(
            change,
            proposal.proposition,
            subject,
            "hypothesis",
            ORIGIN_ASSOCIATION,
            "proposed by association",
        )
        for cue in (proposal.cause, proposal.effect):
            row = {
                "direction": FOR,
                "weight": ASSOCIATION_WEIGHT,
                "credibility": cue.credibility,
                "derivation": "direct",
                "family": cue.source_family,
                "root_kind": "observation",
                "root_ids": [cue.id],
            }
            state.add_row(change, main.id, row, ORIGIN_ASSOCIATION, "evidence added")
        alternatives = []
        for text in proposal.alternatives:
            if state.refusing_pattern(text) is not None or state.find_belief(text, subject) is not None:
                continue
            alt = state.create_belief(change, text, subject, "hypothesis", ORIGIN_ASSOCIATION, "alternative")
            change.edges.append(EdgeMerge("ALTERNATIVE_TO", "Belief", alt.id, "Belief", main.id))
            alternatives.append(alt.id)
        state.settle(change, [main.id, *alternatives])
        for belief_id in (main.id, *alternatives):
            state.detect_contradictions(change, belief_id)
        change.event("hypothesis_proposed", belief=main.id, observations=pair)
        proposed.append({"belief": main.id, "alternatives": alternatives, "observations": pair})
    change.result["proposed"] = proposed
    change.result["refusals"] = refused
