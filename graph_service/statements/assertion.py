"""An assertion: the interpretation of one claim, and the evidence spec a factual one yields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class EvidenceSpec:
    """What a factual assertion hands to the belief layer: one row for one proposition."""

    proposition: str
    direction: str
    family: str
    weight: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "proposition": self.proposition,
            "direction": self.direction,
            "family": self.family,
            "weight": self.weight,
        }


@dataclass(frozen=True, slots=True)
class AssertionDraft:
    """The interpretation of one claim. `core` is the proposition without its negation words, so
    a contradiction detector can compare two claims of opposite polarity."""

    index: int
    claim: str
    proposition: str
    core: str
    actor: str
    speaker: str
    stance: str
    certainty: float
    modality: str
    negated: bool
    reported: bool
    quoted: bool
    hypothetical: bool
    sarcasm: bool
    interpretation_confidence: float
    notes: tuple[str, ...]
    factual: bool
    source: str
    evidence: EvidenceSpec | None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON (notes as a list, evidence as a map or None)."""
        return {
            "index": self.index,
            "claim": self.claim,
            "proposition": self.proposition,
            "core": self.core,
            "actor": self.actor,
            "speaker": self.speaker,
            "stance": self.stance,
            "certainty": self.certainty,
            "modality": self.modality,
            "negated": self.negated,
            "reported": self.reported,
            "quoted": self.quoted,
            "hypothetical": self.hypothetical,
            "sarcasm": self.sarcasm,
            "interpretation_confidence": self.interpretation_confidence,
            "notes": list(self.notes),
            "factual": self.factual,
            "source": self.source,
            "evidence": None if self.evidence is None else self.evidence.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AssertionDraft:
        """Rebuild from `as_dict` output (the form kept in the journal)."""
        ev = data.get("evidence")
        evidence = None if ev is None else EvidenceSpec(**{k: ev[k] for k in EVIDENCE_FIELDS})
        values = {k: data[k] for k in ASSERTION_FIELDS if k not in ("notes", "evidence")}
        return cls(**values, notes=tuple(data["notes"]), evidence=evidence)


ASSERTION_FIELDS: Final = tuple(AssertionDraft.__dataclass_fields__)
EVIDENCE_FIELDS: Final = tuple(EvidenceSpec.__dataclass_fields__)
