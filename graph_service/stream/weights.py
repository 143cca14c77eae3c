"""The weight table: how much one observation matters, from its kind, novelty and magnitude.

weight = base[kind] + first_bonus (the first row of this kind about this subject for this observer)
         + the bonus of the highest magnitude band strictly exceeded,
clamped to [MIN_WEIGHT, MAX_WEIGHT]. The default table is the one SPEC 3.6 names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal

MIN_WEIGHT: Final = 1
MAX_WEIGHT: Final = 10

MagnitudeRule = Literal["zero", "positive"]


@dataclass(frozen=True, slots=True)
class KindRule:
    """One observation kind: its base weight and what its magnitude must be."""

    base: int
    magnitude: MagnitudeRule

    def __post_init__(self) -> None:
        if isinstance(self.base, bool) or not isinstance(self.base, int):
            raise ValueError("a kind's base weight must be an integer")
        if self.magnitude not in ("zero", "positive"):
            raise ValueError("a kind's magnitude rule must be 'zero' or 'positive'")


@dataclass(frozen=True, slots=True)
class Weighing:
    """The weight of one row and how it was reached (for display and for the journal)."""

    base: int
    first: int
    band: int
    weight: int


def _default_kinds() -> Mapping[str, KindRule]:
    return MappingProxyType(
        {
            "seen": KindRule(base=2, magnitude="zero"),
            "given": KindRule(base=5, magnitude="positive"),
            "taken": KindRule(base=7, magnitude="positive"),
        }
    )


@dataclass(frozen=True, slots=True)
class WeightTable:
    """Kinds with their base weights, the novelty bonus and the magnitude bands.

    `bands` are (threshold, bonus) pairs: the bonus of the highest threshold the magnitude is
    strictly greater than applies (bands do not add up). `presence_kind` is the kind written
    when something comes into view.
    """

    kinds: Mapping[str, KindRule] = field(default_factory=_default_kinds)
    first_bonus: int = 1
    bands: tuple[tuple[int, int], ...] = ((5, 1), (30, 2))
    presence_kind: str = "seen"

    def __post_init__(self) -> None:
        if not self.kinds:
            raise ValueError("a weight table needs at least one kind")
        for name in self.kinds:
            if not isinstance(name, str) or not name:
                raise ValueError("kind names must be non-empty strings")
        if self.presence_kind not in self.kinds:
            raise ValueError(f"presence kind {self.presence_kind!r} is not in the table")
        if self.kinds[self.presence_kind].magnitude != "zero":
            raise ValueError("the presence kind must carry no magnitude")
        object.__setattr__(self, "kinds", MappingProxyType(dict(self.kinds)))
        object.__setattr__(self, "bands", tuple(sorted((int(t), int(b)) for t, b in self.bands)))

    def band_bonus(self, magnitude: int) -> int:
        """The bonus of the highest band whose threshold `magnitude` exceeds (0 below them all)."""
        bonus = 0
        for threshold, band in self.bands:
            if magnitude > threshold:
                bonus = band
        return bonus

    def weigh(self, kind: str, magnitude: int, *, first: bool) -> Weighing:
        """The weight of a row of a known kind; the caller has already validated the row."""
        base = self.kinds[kind].base
        novelty = self.first_bonus if first else 0
        band = self.band_bonus(magnitude)
        weight = min(MAX_WEIGHT, max(MIN_WEIGHT, base + novelty + band))
        return Weighing(base=base, first=novelty, band=band, weight=weight)


DEFAULT_TABLE: Final = WeightTable()
