"""Evidence-derived confidence (SPEC 3.4), as one pure function that also explains itself.

Independence is counted in *families* (the source a row ultimately rests on), not rows: a family's
repetition is worth a quarter per extra primary row and never more than half again its strongest
row, and re-expressions (derived rows) never add to a family that already brought information in.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from graph_service.beliefs.vocabulary import (
    AGAINST,
    FOR,
    LEGACY_UNKNOWN,
    PRIMARY_DERIVATIONS,
    PRIORS,
    RECORDED,
)

REPEAT_SHARE = 0.25
REPEAT_CAP = 1.5
EVIDENCE_SCALE = 1.5
FLOOR, CEILING = 0.02, 0.98
FORMULA = "sigmoid(logit(prior) + 1.5 × (for × diversity − against)), clamped to [0.02, 0.98]"


@dataclass(frozen=True, slots=True)
class EvidenceValue:
    """The part of a live evidence row the arithmetic reads."""

    family: str
    direction: str
    weight: float
    credibility: float
    derivation: str
    provenance_status: str = RECORDED

    @property
    def value(self) -> float:
        return self.weight * self.credibility

    @property
    def primary(self) -> bool:
        return self.derivation in PRIMARY_DERIVATIONS

    @property
    def legacy(self) -> bool:
        """A row recorded before provenance was (its family is its source, its ancestry unknown)."""
        return self.provenance_status == LEGACY_UNKNOWN


@dataclass(frozen=True, slots=True)
class FamilyContribution:
    """What one family adds on one side, and how that number came about."""

    family: str
    direction: str
    contribution: float
    strongest: float
    primary_rows: int
    derived_rows: int
    basis: str  # "primary" or "derived"
    capped: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "direction": self.direction,
            "contribution": self.contribution,
            "strongest": self.strongest,
            "primary_rows": self.primary_rows,
            "derived_rows": self.derived_rows,
            "basis": self.basis,
            "capped": self.capped,
        }


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A confidence with everything that produced it; stored with every belief version."""

    epistemic_kind: str
    prior: float
    families: tuple[FamilyContribution, ...]
    support: float
    against: float
    supporting_families: int
    opposing_families: int
    diversity: float
    log_odds: float
    confidence: float
    formula: str
    notes: tuple[str, ...] = field(default=())

    @property
    def discounted_support(self) -> float:
        return self.support * self.diversity

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (the key `for` is the support total)."""
        return {
            "epistemic_kind": self.epistemic_kind,
            "prior": self.prior,
            "families": [f.to_dict() for f in self.families],
            "for": self.support,
            "against": self.against,
            "supporting_families": self.supporting_families,
            "opposing_families": self.opposing_families,
            "diversity": self.diversity,
            "log_odds": self.log_odds,
            "confidence": self.confidence,
            "formula": self.formula,
            "notes": list(self.notes),
        }


def family_contribution(primary: Iterable[float], derived: Iterable[float]) -> tuple[float, bool]:
    """(contribution, capped) of one family on one side.

    With primary rows: the strongest, plus a quarter of each further one, capped at 1.5 × strongest;
    derived rows are then ignored. Without: the strongest derived row alone.
    """
    tally = FamilyTally()
    for value in primary:
        tally.add(value, primary=True)
    for value in derived:
        tally.add(value, primary=False)
    if tally.empty:
        return 0.0, False
    amount, capped, _ = tally.contribution()
    return amount, capped


class FamilyTally:
    """The live rows of one family on one side of one belief, kept as they come and go, so that
    re-evaluating a belief costs its families, not every row it ever had.

    The further primary rows are summed exactly (a `Fraction` of the floats, rounded once when read),
    so a family's contribution depends only on which rows are live, never on the order they came and
    went in: the same as `math.fsum` over them, and the same whichever way the tally was reached.
    """

    __slots__ = ("derived", "legacy_rows", "primary", "primary_sum")

    def __init__(self) -> None:
        self.primary: list[float] = []  # ascending
        self.derived: list[float] = []  # ascending
        self.primary_sum = Fraction(0)
        self.legacy_rows = 0

    @property
    def empty(self) -> bool:
        return not self.primary and not self.derived

    def add(self, value: float, *, primary: bool, legacy: bool = False, times: int = 1) -> None:
        """Count `times` live rows of this value (as many single adds would, in one step)."""
        values = self.primary if primary else self.derived
        at = bisect.bisect_right(values, value)
        values[at:at] = [value] * times
        if primary:
            self.primary_sum += Fraction(value) * times
        self.legacy_rows += legacy * times

    def remove(self, value: float, *, primary: bool, legacy: bool = False) -> None:
        """Forget one live row with this value; ValueError if the tally holds none."""
        values = self.primary if primary else self.derived
        at = bisect.bisect_left(values, value)
        if at == len(values) or values[at] != value:
            raise ValueError(f"the family tally holds no {'primary' if primary else 'derived'} row of value {value!r}")
        del values[at]
        if primary:
            self.primary_sum -= Fraction(value)
        self.legacy_rows -= legacy

    def contribution(self) -> tuple[float, bool, float]:
        """(contribution, capped, strongest row) of a tally holding at least one row."""
        if not self.primary:
            return self.derived[-1], False, self.derived[-1]
        strongest = self.primary[-1]
        total = strongest + REPEAT_SHARE * float(self.primary_sum - Fraction(strongest))
        cap = REPEAT_CAP * strongest
        return (cap, True, strongest) if total > cap else (total, False, strongest)


FamilyKey = tuple[str, str]
"""(direction, family)."""


class BeliefTallies(dict[FamilyKey, FamilyTally]):
    """One belief's family tallies, and how many of its live rows hold each value (`counts`): what the graph keeps
    on the belief's Tally nodes, so that a write reads a belief that collects evidence by its values, whose number
    does not grow with the store, rather than by its rows, which do."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[EvidenceValue, int] = {}

    def add_rows(self, value: EvidenceValue, times: int = 1) -> None:
        """Count `times` more live rows of this value."""
        key = (value.direction, value.family)
        tally = self.get(key)
        if tally is None:
            tally = self[key] = FamilyTally()
        tally.add(value.value, primary=value.primary, legacy=value.legacy, times=times)
        self.counts[value] = self.counts.get(value, 0) + times

    def remove_row(self, value: EvidenceValue) -> None:
        """Count one live row of this value fewer; ValueError if none is counted."""
        key = (value.direction, value.family)
        held, tally = self.counts.get(value, 0), self.get(key)
        if not held or tally is None:
            raise ValueError(f"no live row of value {value} is counted")
        tally.remove(value.value, primary=value.primary, legacy=value.legacy)
        if tally.empty:
            del self[key]
        if held == 1:
            del self.counts[value]
        else:
            self.counts[value] = held - 1


def tally_rows(rows: Iterable[EvidenceValue]) -> BeliefTallies:
    """The family tallies of these live rows."""
    return tally_counted((row, 1) for row in rows)


def tally_counted(values: Iterable[tuple[EvidenceValue, int]]) -> BeliefTallies:
    """The family tallies of live rows given as each value with how many rows hold it."""
    tallies = BeliefTallies()
    for value, count in values:
        tallies.add_rows(value, count)
    return tallies


def diversity_for(supporting_families: int) -> float:
    """0.6 + 0.4 × min(1, (n − 1) / 2).

    With no supporting family the literal formula gives 0.4, which would only ever multiply a zero
    support; we report 0.6 (the single-family value) so diversity always reads within [0.6, 1].
    """
    return 0.6 + 0.4 * min(1.0, max(0, supporting_families - 1) / 2)


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    # Split on the sign so a very large |x| never overflows exp().
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def assess(epistemic_kind: str, rows: Iterable[EvidenceValue]) -> Breakdown:
    """Confidence of a belief of this kind given its live evidence rows (retracted rows excluded)."""
    return assess_tallies(epistemic_kind, tally_rows(rows))


def assess_tallies(epistemic_kind: str, tallies: Mapping[FamilyKey, FamilyTally]) -> Breakdown:
    """`assess` over the family tallies of the live rows (empty tallies count as absent)."""
    if epistemic_kind not in PRIORS:
        raise ValueError(f"unknown epistemic kind {epistemic_kind!r}")
    prior = PRIORS[epistemic_kind]
    groups = {key: tally for key, tally in tallies.items() if not tally.empty}
    notes: list[str] = []
    families: list[FamilyContribution] = []
    totals = {FOR: 0.0, AGAINST: 0.0}
    counts = {FOR: 0, AGAINST: 0}
    for direction, family in sorted(groups):
        tally = groups[(direction, family)]
        amount, capped, strongest = tally.contribution()
        primary, derived = len(tally.primary), len(tally.derived)
        basis = "primary" if primary else "derived"
        families.append(
            FamilyContribution(family, direction, amount, strongest, primary, derived, basis, capped)
        )
        if capped:
            notes.append(f"{family} ({direction}): repetition capped at 1.5 × its strongest row")
        if primary and derived:
            notes.append(
                f"{family} ({direction}): {derived} derived row(s) add nothing beside primary rows"
            )
        if not primary:
            notes.append(f"{family} ({direction}): no primary row, its strongest derived row counts alone")
        totals[direction] += amount
        # A family adding nothing (weight or credibility 0) is not a source of independent support.
        if amount > 0:
            counts[direction] += 1
    legacy = {family for (_, family), tally in groups.items() if tally.legacy_rows}
    for family in sorted(legacy):
        notes.append(f"{family}: legacy_unknown rows, family is their source, no ancestry known")
    if not groups:
        notes.append("no live evidence: the prior stands")

    support, against = totals[FOR], totals[AGAINST]
    diversity = diversity_for(counts[FOR])
    log_odds = logit(prior) + EVIDENCE_SCALE * (support * diversity - against)
    raw = sigmoid(log_odds)
    confidence = min(CEILING, max(FLOOR, raw))
    if raw > CEILING:
        notes.append("clamped to the upper bound 0.98")
    elif raw < FLOOR:
        notes.append("clamped to the lower bound 0.02")
    formula = (
        f"sigmoid(logit({_fmt(prior)}) + 1.5 × ({_fmt(support)} × {_fmt(diversity)} − {_fmt(against)}))"
        f" = {_fmt(raw)}, clamped to [0.02, 0.98] = {_fmt(confidence)}"
    )
    return Breakdown(
        epistemic_kind=epistemic_kind,
        prior=prior,
        families=tuple(families),
        support=support,
        against=against,
        supporting_families=counts[FOR],
        opposing_families=counts[AGAINST],
        diversity=diversity,
        log_odds=log_odds,
        confidence=confidence,
        formula=formula,
        notes=tuple(notes),
    )
