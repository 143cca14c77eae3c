"""A belief's status, read from its confidence breakdown unless an operator pinned it."""

from __future__ import annotations

from graph_service.beliefs.confidence import Breakdown
from graph_service.beliefs.vocabulary import (
    ACCEPTED,
    CONTESTED,
    HYPOTHESIS,
    LIKELY,
    REJECTED,
    SUPERSEDED,
    TENTATIVE,
)

CONTESTED_RANGE = (0.25, 0.75)
REJECTED_BELOW = 0.15
HYPOTHESIS_BELOW = 0.5
TENTATIVE_BELOW = 0.7
LIKELY_BELOW = 0.85


def is_contested(breakdown: Breakdown) -> bool:
    """Both sides carry weight: against ≥ half the discounted support, confidence mid-range.

    Both totals must be positive; otherwise a belief with no evidence at all (0 ≥ 0) would read
    as contested.
    """
    low, high = CONTESTED_RANGE
    return (
        breakdown.support > 0
        and breakdown.against > 0
        and breakdown.against >= 0.5 * breakdown.discounted_support
        and low <= breakdown.confidence <= high
    )


def derive_status(breakdown: Breakdown, *, pinned: str | None = None, superseded: bool = False) -> str:
    """The first rule that holds: pinned, superseded, contested, rejected, hypothesis, tentative, likely,
    accepted."""
    if pinned is not None:
        return pinned
    if superseded:
        return SUPERSEDED
    if is_contested(breakdown):
        return CONTESTED
    confidence = breakdown.confidence
    if confidence < REJECTED_BELOW:
        return REJECTED
    if breakdown.epistemic_kind == HYPOTHESIS and (breakdown.support == 0 or confidence < HYPOTHESIS_BELOW):
        return HYPOTHESIS
    if confidence < TENTATIVE_BELOW:
        return TENTATIVE
    if confidence < LIKELY_BELOW:
        return LIKELY
    return ACCEPTED
