"""Recall without a query: rank an observer's rows by recency and importance.

score = w_recency × 0.5^(age / half_life) + w_importance × weight / 10, where age = now − tick.
The top k are returned, best first; equal scores keep write order (the order ids were given).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
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
    half, wr, wi = _factors(half_life, w_recency, w_importance)
    scored: list[tuple[float, tuple[int, int], int, float, float, Observation]] = []
    for row in observations:
        check_observation(row, table)
        if row.tick > now:
            raise UserError(f"observation {row.id} is at tick {row.tick}, after tick {now}", field="now")
        age = now - row.tick
        recency, importance, score = _terms(age, row.weight, half, wr, wi)
        scored.append((score, row.order, age, recency, importance, row))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return tuple(
        Recalled(rank=i, observation=row, age=age, recency=rec, importance=imp, score=score)
        for i, (score, _, age, rec, imp, row) in enumerate(scored[:k], start=1)
    )


def recall_of_newest(rows: Iterable[Observation], cut: Mapping[int, int], now: int, k: int, half_life: float,
                     w_recency: float, w_importance: float, *,
                     table: WeightTable = DEFAULT_TABLE) -> tuple[Recalled, ...] | None:
    """`recall` over every row of an observer, told from some of them, or None when they cannot tell.

    `rows` holds, for each weight in `cut`, its rows from tick cut[weight] on (its k newest, and any as new as the
    k-th) and its k first written (and any written by the same entry as the k-th), and every row of the other
    weights. A row left out of a weight is older than the cut and written after those k, so it scores at most
    what its weight scores at the tick before the cut. It cannot enter the top k when that is below the k-th
    score of the rows given, or when that is all its weight scores with no recency (recency too small to move the
    score, or no weight on it): then its weight's k first written rows score as much and were written first.
    Otherwise None; None too when a row given is after `now` (`recall` over every row names the first such row
    in write order). Bad parameters raise UserError as `recall` does."""
    kept = list(rows)
    if any(row.tick > now for row in kept):
        return None
    ranked = recall(kept, now, k, half_life, w_recency, w_importance, table=table)
    if k == 0:
        return ranked
    half, wr, wi = _factors(half_life, w_recency, w_importance)
    kth = ranked[k - 1].score if len(ranked) >= k else None
    for weight, tick in cut.items():
        bound = _terms(now - tick + 1, weight, half, wr, wi)[2]
        if bound != wi * (weight / MAX_WEIGHT) and (kth is None or not bound < kth):
            return None
    return ranked


def _factors(half_life: float, w_recency: float, w_importance: float) -> tuple[float, float, float]:
    return (_check_factor(half_life, "half_life", positive=True),
            _check_factor(w_recency, "w_recency", positive=False),
            _check_factor(w_importance, "w_importance", positive=False))


def _terms(age: int, weight: int, half: float, wr: float, wi: float) -> tuple[float, float, float]:
    """A row's recency, importance and score at this age: the one computation of them, so that a bound is the
    score a row would have."""
    recency = 0.5 ** (age / half)
    importance = weight / MAX_WEIGHT
    return recency, importance, wr * recency + wi * importance
