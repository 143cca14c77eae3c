"""Checks on client payloads: each failure is a UserError naming the offending field."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from graph_service.beliefs.from_statements import actor_family
from graph_service.beliefs.vocabulary import (
    DERIVATIONS,
    DIRECTIONS,
    LEGACY_UNKNOWN,
    PROVENANCE_STATUSES,
    RECORDED,
    ROOT_KINDS,
)
from graph_service.errors import UserError

_MISSING = object()


def text(payload: dict[str, Any], name: str, *, where: str = "", optional: bool = False) -> str | None:
    """A non-blank string, stripped; None when optional and absent."""
    value = payload.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{where}{name} must be a non-empty string", field=where + name)
    return value.strip()


def unit(payload: dict[str, Any], name: str, *, where: str = "", default: Any = _MISSING) -> float:
    """A finite number within [0, 1]."""
    value = payload.get(name, default)
    if value is _MISSING:
        raise UserError(f"{where}{name} is required (a number in [0, 1])", field=where + name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UserError(f"{where}{name} must be a number in [0, 1], got {value!r}", field=where + name)
    if not 0.0 <= value <= 1.0:
        raise UserError(f"{where}{name} must be within [0, 1], got {value!r}", field=where + name)
    return float(value)


def choice(
    payload: dict[str, Any], name: str, options: Sequence[str], *, where: str = "", default: Any = _MISSING
) -> str:
    value = payload.get(name, default)
    if value is _MISSING:
        raise UserError(f"{where}{name} is required (one of {', '.join(options)})", field=where + name)
    if value not in options:
        raise UserError(
            f"{where}{name} {value!r} is unknown; expected one of {', '.join(options)}", field=where + name
        )
    return str(value)


def flag(payload: dict[str, Any], name: str, *, where: str = "", default: bool = False) -> bool:
    value = payload.get(name, default)
    if not isinstance(value, bool):
        raise UserError(f"{where}{name} must be true or false", field=where + name)
    return value


def whole(payload: dict[str, Any], name: str, *, where: str = "", minimum: int = 0) -> int:
    value = payload.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UserError(f"{where}{name} must be an integer ≥ {minimum}", field=where + name)
    return value


def evidence_row(raw: Any, *, where: str = "") -> dict[str, Any]:
    """The journal form of one evidence row, with defaults filled in.

    A `legacy_unknown` row predates provenance: its family is its `source` and it has no roots.
    """
    if not isinstance(raw, dict):
        raise UserError(f"{where or 'evidence'} must be an object", field=where.rstrip(".") or "evidence")
    direction = choice(raw, "direction", DIRECTIONS, where=where, default="for")
    weight = unit(raw, "weight", where=where)
    credibility = unit(raw, "credibility", where=where, default=1.0)
    derivation = choice(raw, "derivation", DERIVATIONS, where=where, default="direct")
    provenance = choice(raw, "provenance_status", PROVENANCE_STATUSES, where=where, default=RECORDED)
    actor = text(raw, "actor", where=where, optional=True)
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        raise UserError(f"{where}note must be a string", field=where + "note")
    root_kind = raw.get("root_kind")
    if root_kind is not None:
        root_kind = choice(raw, "root_kind", ROOT_KINDS, where=where)
    root_ids = raw.get("root_ids", [])
    if not isinstance(root_ids, list) or not all(isinstance(r, str) and r.strip() for r in root_ids):
        raise UserError(f"{where}root_ids must be a list of non-empty strings", field=where + "root_ids")
    if root_ids and root_kind is None:
        raise UserError(f"{where}root_kind is required when root_ids are given", field=where + "root_kind")
    if provenance == LEGACY_UNKNOWN:
        family = text(raw, "source", where=where)
        if raw.get("family") not in (None, family):
            raise UserError(f"{where}family of a legacy_unknown row is its source", field=where + "family")
        if root_ids:
            raise UserError(
                f"{where}root_ids: a legacy_unknown row has no known ancestry", field=where + "root_ids"
            )
    else:
        family = text(raw, "family", where=where, optional=actor is not None) or actor_family(actor)
    return {
        "direction": direction,
        "weight": weight,
        "credibility": credibility,
        "derivation": derivation,
        "family": family,
        "provenance_status": provenance,
        "root_kind": root_kind,
        "root_ids": list(dict.fromkeys(r.strip() for r in root_ids)),
        "actor": actor,
        "note": note,
    }
