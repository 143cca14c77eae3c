"""Observation rows: the record, its generated id and the checks that refuse a bad row.

A row is `(observer, tick, kind, subject, magnitude, weight)` plus an id derived from the journal
position that wrote it, so ids are stable under replay and under a rebuild that skips entries.
Every check raises `UserError` naming the offending field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from graph_service.actors import actor_key
from graph_service.errors import UserError
from graph_service.stream.weights import DEFAULT_TABLE, MAX_WEIGHT, MIN_WEIGHT, WeightTable

MAX_NAME_CHARS: Final = 200


def observation_id(seq: int, slot: int) -> str:
    """The id of the `slot`-th row written by the journal entry at position `seq`."""
    return f"obs-{seq}-{slot}"


@dataclass(frozen=True, slots=True)
class Observation:
    """One append-only stream row. `seq` and `slot` are where it was written (its order)."""

    id: str
    observer: str
    tick: int
    kind: str
    subject: str
    magnitude: int
    weight: int
    seq: int
    slot: int = 0
    first: bool = False

    @property
    def order(self) -> tuple[int, int]:
        """Write order: ties in recall are broken by this, i.e. by id in the order ids were given."""
        return (self.seq, self.slot)

    def as_row(self) -> dict[str, Any]:
        """The row as plain JSON (what the journal payload and the API carry)."""
        return {
            "id": self.id,
            "observer": self.observer,
            "tick": self.tick,
            "kind": self.kind,
            "subject": self.subject,
            "magnitude": self.magnitude,
            "weight": self.weight,
            "first": self.first,
        }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_name(value: Any, field: str) -> str:
    """A non-empty identifier string of at most MAX_NAME_CHARS characters."""
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{field} must be a non-empty string", field=field)
    if len(value) > MAX_NAME_CHARS:
        raise UserError(f"{field} is longer than {MAX_NAME_CHARS} characters", field=field)
    return value


def check_actor(value: Any, field: str) -> str:
    """An observer's, speaker's or hearer's id: a name (as check_name) spelt as every actor is
    (graph_service.actors), so "Ann" and "ann" are one; UserError for a name with no letter or digit."""
    key = actor_key(check_name(value, field))
    if not key:
        raise UserError(f"{field} must name someone (a letter or digit)", field=field)
    return key


def check_tick(value: Any, field: str = "tick") -> int:
    if not _is_int(value):
        raise UserError(f"{field} must be an integer, got {value!r}", field=field)
    if value < 0:
        raise UserError(f"{field} must not be negative, got {value}", field=field)
    return value


def check_subject(value: Any, field: str = "subject") -> str:
    """A subject is a non-empty string or a positive integer (kept as its decimal string)."""
    if _is_int(value):
        if value <= 0:
            raise UserError(f"{field} must be a positive integer or a non-empty string", field=field)
        return str(value)
    return check_name(value, field)


def check_kind(value: Any, table: WeightTable, field: str = "kind") -> str:
    if not isinstance(value, str) or value not in table.kinds:
        known = ", ".join(sorted(table.kinds))
        raise UserError(f"{field} {value!r} is not a known kind (known: {known})", field=field)
    return value


def check_magnitude(value: Any, kind: str, table: WeightTable, field: str = "magnitude") -> int:
    """The magnitude must be an integer consistent with the kind's rule (zero or positive)."""
    if not _is_int(value):
        raise UserError(f"{field} must be an integer, got {value!r}", field=field)
    rule = table.kinds[kind].magnitude
    if rule == "zero" and value != 0:
        raise UserError(f"{field} must be 0 for kind {kind!r}, got {value}", field=field)
    if rule == "positive" and value <= 0:
        raise UserError(f"{field} must be greater than 0 for kind {kind!r}, got {value}", field=field)
    return value


def check_weight(value: Any, field: str = "weight") -> int:
    if not _is_int(value):
        raise UserError(f"{field} must be an integer, got {value!r}", field=field)
    if not MIN_WEIGHT <= value <= MAX_WEIGHT:
        raise UserError(f"{field} must be between {MIN_WEIGHT} and {MAX_WEIGHT}, got {value}", field=field)
    return value


def check_observation(row: Observation, table: WeightTable = DEFAULT_TABLE) -> Observation:
    """Refuse a row that could not have been written (used on rows handed to recall and on replay)."""
    check_actor(row.observer, "observer")
    check_tick(row.tick)
    check_kind(row.kind, table)
    check_subject(row.subject)
    check_magnitude(row.magnitude, row.kind, table)
    check_weight(row.weight)
    return row


def observation_from_row(row: Mapping[str, Any], seq: int, slot: int, table: WeightTable) -> Observation:
    """Rebuild a row from its journal form, checking every field again."""
    if not isinstance(row, Mapping):
        raise UserError("an observation row must be an object", field="rows")
    kind = check_kind(row.get("kind"), table)
    obs = Observation(
        id=observation_id(seq, slot),
        observer=check_actor(row.get("observer"), "observer"),
        tick=check_tick(row.get("tick")),
        kind=kind,
        subject=check_subject(row.get("subject")),
        magnitude=check_magnitude(row.get("magnitude"), kind, table),
        weight=check_weight(row.get("weight")),
        seq=seq,
        slot=slot,
        first=bool(row.get("first", False)),
    )
    return obs
