"""Question-bearing targets and how much rests on each (materiality), as plain records."""

from __future__ import annotations

from dataclasses import dataclass

from graph_service.errors import UserError

DISPUTE = "dispute"
STALE_ITEM = "stale_item"
UNKNOWN = "unknown"
CANDIDATE_KINDS: tuple[str, ...] = (DISPUTE, STALE_ITEM, UNKNOWN)

# The graph label each kind of target carries; a Question node ASKS_ABOUT that label.
TARGET_LABELS: dict[str, str] = {DISPUTE: "Dispute", STALE_ITEM: "Item", UNKNOWN: "Unknown"}

# A decision that read a target loses the most if it is wrong, a snapshot handed to one a little
# less, a premise-dependent item least: weights keep that order while every count still counts.
MATERIALITY_WEIGHTS: dict[str, int] = {"decisions": 3, "snapshots": 2, "dependents": 1}


def _text(value: object, field: str, *, required: bool) -> str:
    if not isinstance(value, str):
        raise UserError(f"{field} must be a string, got {type(value).__name__}", field=field)
    if required and not value.strip():
        raise UserError(f"{field} must not be empty", field=field)
    return value


def _count(value: object, field: str) -> int:
    # bool is an int subclass; True as a count is a caller bug, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{field} must be an integer, got {type(value).__name__}", field=field)
    if value < 0:
        raise UserError(f"{field} must not be negative, got {value}", field=field)
    return value


@dataclass(frozen=True, slots=True)
class Candidate:
    """One node a question can be asked about, as the store sees it after the write.

    `subject` names what the question is about (an unknown's factor, a dispute's key, a stale
    item's key or label); `detail` is the unknown's declared question or the reason an item was
    flagged; `values` are a dispute's competing values or a stale item's current value.
    `parent` is the decision or situation the target sits in: context for the text, never its topic.
    The counts are the materiality inputs: items resting on the target, snapshots that read it,
    decisions that read or are affected by it. `resolved` marks a target that no longer needs an
    answer (a resolved dispute, a reconfirmed item, an answered unknown).
    """

    id: str
    kind: str
    opened_at: int
    subject: str
    parent: str | None = None
    detail: str = ""
    values: tuple[str, ...] = ()
    dependents: int = 0
    snapshots: int = 0
    decisions: int = 0
    resolved: bool = False

    def __post_init__(self) -> None:
        _text(self.id, "id", required=True)
        if self.kind not in CANDIDATE_KINDS:
            raise UserError(
                f"kind must be one of {', '.join(CANDIDATE_KINDS)}, got {self.kind!r}", field="kind"
            )
        _count(self.opened_at, "opened_at")
        _text(self.subject, "subject", required=True)
        if self.parent is not None:
            _text(self.parent, "parent", required=True)
        _text(self.detail, "detail", required=False)
        if not isinstance(self.values, tuple):
            raise UserError("values must be a tuple of strings", field="values")
        for value in self.values:
            _text(value, "values", required=False)
        for name in MATERIALITY_WEIGHTS:
            _count(getattr(self, name), name)
        if not isinstance(self.resolved, bool):
            raise UserError("resolved must be a boolean", field="resolved")

    @property
    def label(self) -> str:
        """The graph label of the target node."""
        return TARGET_LABELS[self.kind]


@dataclass(frozen=True, slots=True)
class Score:
    """Why a candidate ranks where it does: the materiality breakdown, then age, then id."""

    id: str
    kind: str
    dependents: int
    snapshots: int
    decisions: int
    materiality: int
    opened_at: int

    @property
    def rank_key(self) -> tuple[int, int, str]:
        """Sort ascending: most material first, then oldest (lowest journal position), then id."""
        return (-self.materiality, self.opened_at, self.id)

    def as_dict(self) -> dict[str, int | str]:
        return {
            "id": self.id,
            "kind": self.kind,
            "dependents": self.dependents,
            "snapshots": self.snapshots,
            "decisions": self.decisions,
            "materiality": self.materiality,
            "opened_at": self.opened_at,
        }


def score(candidate: Candidate) -> Score:
    """The materiality of a candidate: the weighted sum of what rests on it (MATERIALITY_WEIGHTS)."""
    total = sum(weight * getattr(candidate, name) for name, weight in MATERIALITY_WEIGHTS.items())
    return Score(
        id=candidate.id,
        kind=candidate.kind,
        dependents=candidate.dependents,
        snapshots=candidate.snapshots,
        decisions=candidate.decisions,
        materiality=total,
        opened_at=candidate.opened_at,
    )
