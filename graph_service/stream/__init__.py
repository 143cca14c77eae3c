"""The observation stream (SPEC 3.6): weighed, append-only rows per observer, boundary writes and
recall by recency and importance. Pure: standard library only, no I/O."""

from graph_service.stream.boundary import PlannedRow, Transfer, boundary_rows, entering_view
from graph_service.stream.recall import Recalled, recall
from graph_service.stream.rows import Observation, check_observation, observation_id
from graph_service.stream.state import OP_DECLARE, OP_OBSERVE, OP_PRESENCE, OPS, Observer, StreamState, replay
from graph_service.stream.weights import (
    DEFAULT_TABLE,
    MAX_WEIGHT,
    MIN_WEIGHT,
    KindRule,
    Weighing,
    WeightTable,
)

__all__ = [
    "DEFAULT_TABLE",
    "MAX_WEIGHT",
    "MIN_WEIGHT",
    "OPS",
    "OP_DECLARE",
    "OP_OBSERVE",
    "OP_PRESENCE",
    "KindRule",
    "Observation",
    "Observer",
    "PlannedRow",
    "Recalled",
    "StreamState",
    "Transfer",
    "Weighing",
    "WeightTable",
    "boundary_rows",
    "check_observation",
    "entering_view",
    "observation_id",
    "recall",
    "replay",
]
