"""The closed vocabularies of the belief layer: kinds, priors, derivations, directions, statuses."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

# Prior confidence by epistemic kind, before any evidence (SPEC 3.4).
PRIORS: Final = MappingProxyType(
    {
        "hypothesis": 0.25,
        "assumption": 0.4,
        "opinion": 0.4,
        "claim": 0.5,
        "observation": 0.6,
        "memory": 0.6,
        "fact": 0.8,
    }
)
EPISTEMIC_KINDS: Final = tuple(PRIORS)

# Primary derivations bring information in from outside the belief layer; derived ones re-express
# information already inside it, so they can never add weight to a family that has a primary row.
PRIMARY_DERIVATIONS: Final = ("direct", "assertion", "operator", "external", "prediction")
DERIVED_DERIVATIONS: Final = ("consolidation", "inference", "reflection", "dream", "retrieval")
DERIVATIONS: Final = PRIMARY_DERIVATIONS + DERIVED_DERIVATIONS

FOR: Final = "for"
AGAINST: Final = "against"
DIRECTIONS: Final = (FOR, AGAINST)

RECORDED: Final = "recorded"
LEGACY_UNKNOWN: Final = "legacy_unknown"
PROVENANCE_STATUSES: Final = (RECORDED, LEGACY_UNKNOWN)

# What an evidence row may rest on; the first three are nodes of the graph (ROOTED_IN targets).
ROOT_LABELS: Final = MappingProxyType({"observation": "Observation", "item": "Item", "belief": "Belief"})
ROOT_KINDS: Final = ("observation", "item", "belief", "prediction", "operator", "note")

# Statuses, from the arithmetic or pinned by an operator.
CONTESTED: Final = "contested"
REJECTED: Final = "rejected"
HYPOTHESIS: Final = "hypothesis"
TENTATIVE: Final = "tentative"
LIKELY: Final = "likely"
ACCEPTED: Final = "accepted"
SUPERSEDED: Final = "superseded"
STATUSES: Final = (CONTESTED, REJECTED, HYPOTHESIS, TENTATIVE, LIKELY, ACCEPTED, SUPERSEDED)

# Where an evidence row came from inside the service (shown on the Evidence node).
ORIGIN_CLIENT: Final = "client"
ORIGIN_CONTRADICTION: Final = "contradiction"
ORIGIN_CORRECTION: Final = "correction"
ORIGIN_ASSOCIATION: Final = "association"
ORIGIN_STATEMENT: Final = "statement"
