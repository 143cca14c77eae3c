"""Boundary writes: what a single boundary (the eyes plus the transfer tally) adds to a stream.

A `seen` row is written only for a subject that comes into view — one that was not in view at
the previous boundary. A subject that stays in view writes nothing; one that leaves and comes
back is new again. Transfers (given, taken, ...) are written as they come.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graph_service.errors import UserError
from graph_service.stream.rows import check_kind, check_magnitude, check_subject
from graph_service.stream.weights import WeightTable


@dataclass(frozen=True, slots=True)
class PlannedRow:
    """A row a boundary will write, before the journal gives it an id."""

    kind: str
    subject: str
    magnitude: int
    weight: int
    first: bool


@dataclass(frozen=True, slots=True)
class Transfer:
    """Something moved between the observer and a subject: a kind with a positive magnitude."""

    kind: str
    subject: str
    magnitude: int


def subject_order(subject: str) -> tuple[int, int, str]:
    """Numeric subjects in numeric order, then the rest in string order (a canonical view order)."""
    return (0, int(subject), "") if subject.isdigit() else (1, 0, subject)


def check_view(in_view: Any, field: str = "in_view") -> tuple[str, ...]:
    """The subjects in view, each checked, without duplicates, in canonical order."""
    if isinstance(in_view, (str, bytes)) or not isinstance(in_view, Iterable):
        raise UserError(f"{field} must be a list of subjects", field=field)
    subjects = {check_subject(s, f"{field}[{i}]") for i, s in enumerate(in_view)}
    return tuple(sorted(subjects, key=subject_order))


def check_transfers(transfers: Any, table: WeightTable, field: str = "transfers") -> tuple[Transfer, ...]:
    """Each transfer must name a known kind other than the presence kind, a subject and a magnitude."""
    if isinstance(transfers, (str, bytes, Mapping)) or not isinstance(transfers, Iterable):
        raise UserError(f"{field} must be a list of transfers", field=field)
    out: list[Transfer] = []
    for i, raw in enumerate(transfers):
        where = f"{field}[{i}]"
        if not isinstance(raw, Mapping):
            raise UserError(f"{where} must be an object with kind, subject and magnitude", field=where)
        kind = check_kind(raw.get("kind"), table, f"{where}.kind")
        if kind == table.presence_kind:
            raise UserError(
                f"{where}.kind {kind!r} is written by the boundary itself from in_view", field=f"{where}.kind"
            )
        subject = check_subject(raw.get("subject"), f"{where}.subject")
        magnitude = check_magnitude(raw.get("magnitude"), kind, table, f"{where}.magnitude")
        out.append(Transfer(kind, subject, magnitude))
    return tuple(out)


def entering_view(
    previous: frozenset[str], in_view: Sequence[str], *, every_tick: bool = False
) -> tuple[str, ...]:
    """The subjects a boundary writes a presence row for.

    `every_tick=True` is the counterfactual design (a row for everything in view at every
    boundary), kept only so its flood can be compared against the real rule.
    """
    return tuple(s for s in in_view if every_tick or s not in previous)


def boundary_rows(
    table: WeightTable,
    previous: frozenset[str],
    firsts: frozenset[tuple[str, str]],
    in_view: Sequence[str],
    transfers: Sequence[Transfer] = (),
    *,
    every_tick: bool = False,
) -> tuple[PlannedRow, ...]:
    """The rows one boundary writes, weighed in order; `firsts` holds the (kind, subject) pairs
    this observer already has a row for, so only a pair's first row earns the novelty bonus."""
    seen = set(firsts)
    rows: list[PlannedRow] = []

    def add(kind: str, subject: str, magnitude: int) -> None:
        first = (kind, subject) not in seen
        seen.add((kind, subject))
        weighing = table.weigh(kind, magnitude, first=first)
        rows.append(PlannedRow(kind, subject, magnitude, weighing.weight, first))

    for subject in entering_view(previous, in_view, every_tick=every_tick):
        add(table.presence_kind, subject, 0)
    for transfer in transfers:
        add(transfer.kind, transfer.subject, transfer.magnitude)
    return tuple(rows)
