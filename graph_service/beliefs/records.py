"""The in-memory records of the belief layer and the graph properties each one projects to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_service.beliefs.confidence import Breakdown, EvidenceValue
from graph_service.beliefs.text import Signature, normalized


@dataclass(slots=True)
class EvidenceRow:
    """One piece of evidence bearing on one belief. Only `weight` (counter rows) and the
    retraction fields ever change after creation."""

    id: str
    belief: str
    direction: str
    weight: float
    credibility: float
    derivation: str
    family: str
    provenance_status: str
    root_kind: str | None
    root_ids: tuple[str, ...]
    origin: str
    created_seq: int
    actor: str | None = None
    note: str | None = None
    retracted: bool = False
    retracted_seq: int | None = None
    retract_reason: str | None = None

    def as_value(self) -> EvidenceValue:
        return EvidenceValue(
            self.family,
            self.direction,
            self.weight,
            self.credibility,
            self.derivation,
            self.provenance_status,
        )

    def node_props(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "belief": self.belief,
            "direction": self.direction,
            "weight": self.weight,
            "credibility": self.credibility,
            "value": self.weight * self.credibility,
            "derivation": self.derivation,
            "family": self.family,
            "provenance_status": self.provenance_status,
            "root_kind": self.root_kind,
            "root_id": self.root_ids[0] if self.root_ids else None,
            "root_ids": list(self.root_ids),
            "origin": self.origin,
            "actor": self.actor,
            "note": self.note,
            "retracted": self.retracted,
            "retracted_seq": self.retracted_seq,
            "retract_reason": self.retract_reason,
            "created_seq": self.created_seq,
        }


def family_props(family: str) -> dict[str, Any]:
    """A family node reads as its kind (the prefix before ':', e.g. actor, operator) and name."""
    kind, sep, name = family.partition(":")
    return {"id": family, "kind": kind if sep else "source", "name": name if sep else family}


@dataclass(slots=True)
class Belief:
    """A proposition held with a confidence; `version` counts the versions appended so far."""

    id: str
    proposition: str
    subject: str | None
    epistemic_kind: str
    signature: Signature
    created_seq: int
    created_by: str
    breakdown: Breakdown
    status: str
    entity: str | None = None
    version: int = 0
    pinned: str | None = None
    superseded_by: str | None = None
    updated_seq: int = 0
    origin: str = "client"
    # Its rows' ids in the order they were made, as the layer held in memory keeps them (prov reads them). A record
    # read from the graph for a write (beliefs.partial.belief_of_props with tallies) holds only the rows it was
    # given and those the write adds: no rule reads the list, and reading every row of a belief that collects
    # evidence is what a write must not do.
    evidence: list[str] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        return self.breakdown.confidence

    @property
    def prior(self) -> float:
        return self.breakdown.prior

    def node_props(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "proposition": self.proposition,
            "text_key": normalized(self.proposition),  # what a duplicate is found by (planning.duplicate_key)
            "subject": self.subject,
            "entity": self.entity,
            "epistemic_kind": self.epistemic_kind,
            "status": self.status,
            "confidence": self.confidence,
            "prior": self.prior,
            "version": self.version,
            "pinned": self.pinned is not None,
            "pinned_status": self.pinned,
            "superseded_by": self.superseded_by,
            "support": self.breakdown.support,
            "against": self.breakdown.against,
            "supporting_families": self.breakdown.supporting_families,
            "diversity": self.breakdown.diversity,
            "origin": self.origin,
            "created_seq": self.created_seq,
            "created_by": self.created_by,
            "updated_seq": self.updated_seq,
        }


@dataclass(frozen=True, slots=True)
class Pattern:
    """A do-not-infer correction: creations matching it are refused."""

    id: str
    proposition: str
    signature: Signature
    seq: int
    by: str


@dataclass(slots=True)
class ContradictionLink:
    """Two beliefs that contradict; `rows` maps each belief to the counter row it received."""

    a: str
    b: str
    rows: dict[str, str]
    seq: int
    how: str  # "detected" or "proposed"
    active: bool = True
