"""Deterministic contradiction detection: the same content with flipped polarity.

Two propositions contradict when exactly one of them is negated and their content tokens have
Jaccard ≥ 0.6. Each side then becomes counter-evidence for the other, weighted by the other's
confidence. That makes the two confidences depend on each other; the state settles them by
propagation, and the constants below are what guarantee it stops:

- a counter row is re-weighted only when its source's confidence moved by more than TOLERANCE;
- each belief pushes its confidence to its partners at most MAX_PROPAGATIONS times per entry.

One partner moves the other by at most 1.5 × 0.25 = 0.375 per unit of weight (the steepest slope
of the sigmoid times the evidence scale), so a pair converges geometrically and stops on the
tolerance long before the cap; the cap bounds the pathological many-partner cases. Whatever
stops the loop, every belief's confidence is always exactly the arithmetic over its current rows.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from graph_service.beliefs.text import Signature, TokenIndex, jaccard

CONTRADICTION_JACCARD = Fraction(3, 5)
TOLERANCE = 1e-9
MAX_PROPAGATIONS = 64
COUNTER_CREDIBILITY = 1.0
COUNTER_DERIVATION = "inference"


def contradicts(a: Signature, b: Signature) -> bool:
    """Flipped polarity over (nearly) the same content."""
    return a.negated != b.negated and jaccard(a.tokens, b.tokens) >= CONTRADICTION_JACCARD


def contradiction_candidates(
    sig: Signature, index: TokenIndex, signature_of: Callable[[str], Signature], exclude: str
) -> list[str]:
    """Indexed keys contradicting `sig` (sorted), other than `exclude`."""
    return [
        key
        for key in index.similar(sig.tokens, CONTRADICTION_JACCARD)
        if key != exclude and signature_of(key).negated != sig.negated
    ]


def counter_family(source_belief: str) -> str:
    """The family of the counter-evidence one belief casts on another: that belief."""
    return f"belief:{source_belief}"
