"""What someone said, as belief evidence: a statement's factual assertions become evidence rows.

The statement domain interprets a message into assertions and hands over one evidence spec per
factual assertion; here, within the same journal entry, each spec finds the live belief holding
its proposition (or creates one, as a claim) and adds one row attributed to the actor who stands
behind the claim, rooted in the message observation. Hypotheticals, questions and imperatives
carry no spec, so they never reach this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from graph_service.actors import actor_key
from graph_service.beliefs.change import Change
from graph_service.beliefs.vocabulary import FOR, ORIGIN_STATEMENT
from graph_service.projection import EdgeMerge

if TYPE_CHECKING:
    from graph_service.beliefs.state import BeliefState

STATEMENT_KIND: Final = "claim"


def actor_family(actor: str) -> str:
    """The family of evidence an actor stands behind (the convention evidence rows use for actors),
    with the actor spelt one way (graph_service.actors): "Ann" and "ann" are one family."""
    return f"actor:{actor_key(actor)}"


def apply_statement_evidence(state: BeliefState, change: Change, specs: Iterable[Mapping[str, Any]]) -> None:
    """Add one evidence row per spec; each spec dict gains the `belief` and `evidence` it became.

    A proposition an operator said not to infer creates no belief (the refusal is an event and
    the spec's `belief` stays None); one already held gains the row whatever the pattern says,
    as any evidence for an existing belief would.
    """
    added: list[dict[str, Any]] = []
    for spec in specs:
        proposition = spec["proposition"]
        belief = state.find_belief(proposition, None)
        created = belief is None
        if belief is None:
            pattern = state.refusing_pattern(proposition)
            if pattern is not None:
                change.event("inference_refused", proposition=proposition, pattern=pattern.id)
                added.append({"assertion": spec["assertion_id"], "belief": None, "evidence": None})
                _annotate(spec, None, None)
                continue
            belief = state.create_belief(
                change, proposition, None, STATEMENT_KIND, ORIGIN_STATEMENT, f"said in {spec['root_id']}"
            )
        row = {
            "direction": spec["direction"],
            "weight": spec["weight"],
            "credibility": spec["credibility"],
            "derivation": spec["derivation"],
            "family": actor_family(spec["family"]),
            "root_kind": spec["root_kind"],
            "root_ids": [spec["root_id"]],
            "actor": spec["family"],
            "note": f"assertion {spec['assertion_id']}",
        }
        evidence = state.add_row(change, belief.id, row, ORIGIN_STATEMENT, "evidence added")
        change.edges.append(EdgeMerge("YIELDED", "Assertion", spec["assertion_id"], "Evidence", evidence.id))
        state.settle(change, [belief.id])
        if created or evidence.direction == FOR:
            state.detect_contradictions(change, belief.id)
        added.append({"assertion": spec["assertion_id"], "belief": belief.id, "evidence": evidence.id})
        _annotate(spec, belief.id, evidence.id)
    change.result["statement_evidence"] = added


def _annotate(spec: Mapping[str, Any], belief: str | None, evidence: str | None) -> None:
    # The say entry's result is the list of specs; the writer reads back what each one became.
    if isinstance(spec, dict):
        spec["belief"] = belief
        spec["evidence"] = evidence
