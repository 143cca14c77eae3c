"""The pure belief layer (SPEC 3.4): beliefs, evidence by independent family, confidence, status,
contradictions, association and corrections. Standard library only; no driver, no I/O."""

from graph_service.beliefs.confidence import Breakdown, EvidenceValue, FamilyContribution, assess
from graph_service.beliefs.fingerprint import BELIEF_FINGERPRINT_FIELDS, fingerprint_of
from graph_service.beliefs.replay import rebuild
from graph_service.beliefs.state import OPS, BeliefState
from graph_service.beliefs.status import derive_status

__all__ = [
    "BELIEF_FINGERPRINT_FIELDS",
    "OPS",
    "BeliefState",
    "Breakdown",
    "EvidenceValue",
    "FamilyContribution",
    "assess",
    "derive_status",
    "fingerprint_of",
    "rebuild",
]
