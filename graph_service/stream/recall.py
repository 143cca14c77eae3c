"""Recall without a query: rank an observer's rows by recency and importance.

score = w_recency × 0.5^(age / half_life) + w_importance × weight / 10, where age = now − tick.
The top k are returned, best first; equal scores keep write order (the order ids were given).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from graph_service.errors import UserError
from graph_service.stream.rows import Observation, check_observation, check_tick
from graph_service.stream.weights import DEFAULT_TABLE, MAX_WEIGHT, WeightTable

DEFAULT_K: Final = 5
DEFAULT_HALF_LIFE: Final = 50.0
DEFAULT_W_RECENCY: Final = 1.0
DEFAULT_W_IMPORTANCE: Final = 1.0


@dataclass(frozen=True, slots=True)
class Recalled:
    """One ranked row with every term of its score shown."""

    rank: int
    observation: Observation
    age: int
    recency: float
    importance: float
    score: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            **self.observation.as_row(),
            "age": self.age,
            "recency": self.recency,
            "importance": self.importance,
            "score": self.score,
        }


def _check_factor(value: Any, field: str, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UserError(f"{field} must be a finite number, got {value!r}", field=field)
    if positive and value <= 0:
        raise UserError(f"{field} must be greater than 0, got {value}", field=field)
    if not positive and value < 0:
        raise UserError(f"{field} must not be negative, got {value}", field=field)
    return float(value)


def recall(
    observations: Iterable[Observation],
    now: int,
    k: int = DEFAULT_K,
    half_life: float = DEFAULT_HALF_LIFE,
    w_recency: float = DEFAULT_W_RECENCY,
    w_importance: float = DEFAULT_W_IMPORTANCE,
    *,
    table: WeightTable = DEFAULT_TABLE,
) -> tuple[Recalled, ...]:
    """The k rows that matter most at tick `now`, best first.

    Raises UserError for bad parameters, for a row that fails its checks, and for any row
    written after `now` (an observation from the future is an error, not a zero age).
    """
    check_tick(now, "now")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise UserError(f"k must be a non-negative integer, got {k!r}", field="k")
    half = _check_factor(half_life, "half_life", positive=True)
    wr = _check_factor(w_recency, "w_recency", positive=False)
    wi = _check_factor(w_importance, "w_importance", positive=False)
    scored: list[tuple[float, tuple[int, int], int, float, float, Observation]] = []
    for row in observations:
        check_observation(row, table)
        if row.tick > now:
            raise UserError(f"observation {row.id} is at tick {row.tick}, after tick {now}", field="now")
        age = now - row.tick
        recency = 0.5 ** (age / half)
        importance = row.weight / MAX_WEIGHT
        scored.append((wr * recency + wi * importance, row.order, age, recency, importance, row))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return tuple(
        Recalled(rank=i, observation=row, age=age, recency=rec, importance=imp, score=score)
        for i, (score, _, age, rec, imp, row) in enumerate(scored[:k], start=1)
    )
