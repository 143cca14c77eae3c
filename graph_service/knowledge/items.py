"""What a knowledge item is: kinds, sources and their ranks, content ids, keys, and a checked proposal.

Everything here is a pure function of plain JSON; nothing reads the store.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graph_service.errors import UserError
from graph_service.journal.chain import canonical_json

KINDS: tuple[str, ...] = ("fact", "rule", "skill", "action", "episode")
# Rules, skills and actions change behaviour: they are promoted by the gates, or held as hypotheses.
BEHAVIOUR_KINDS: frozenset[str] = frozenset({"rule", "skill", "action"})

SOURCES: tuple[str, ...] = ("outcome", "person", "spec", "verified")
RANKS: dict[str, int] = {"outcome": 4, "person": 3, "spec": 2, "verified": 1}
# Only a newer observation or a person re-confirms an item a flag made stale.
CONFIRMING_SOURCES: frozenset[str] = frozenset({"outcome", "person"})

STATUSES: tuple[str, ...] = ("active", "hypothesis", "disputed", "refuted", "expired", "retracted")
# An item in one of these states still supports what is derived from it.
PRESENT_STATUSES: frozenset[str] = frozenset({"active", "hypothesis", "disputed", "expired"})

# Clock units until an item needs re-confirmation; None: never. Weaker evidence expires, what
# happened (outcome), what a person said and finished episodes do not.
RECONFIRM_DEFAULTS: dict[tuple[str, str], int | None] = {
    **{(kind, "outcome"): None for kind in KINDS},
    **{(kind, "person"): None for kind in KINDS},
    ("fact", "spec"): 1000,
    ("rule", "spec"): 1000,
    ("skill", "spec"): 1000,
    ("action", "spec"): 1000,
    ("episode", "spec"): None,
    ("fact", "verified"): 100,
    ("rule", "verified"): 100,
    ("skill", "verified"): 100,
    ("action", "verified"): 100,
    ("episode", "verified"): None,
}


def default_reconfirm_after(
    kind: str, source: str, defaults: Mapping[tuple[str, str], int | None] | None = None
) -> int | None:
    """The reconfirm_after an item of this kind and source gets when the writer names none."""
    table = RECONFIRM_DEFAULTS if defaults is None else defaults
    return table.get((kind, source))


def content_id(kind: str, body: Mapping[str, Any], scope: Mapping[str, Any]) -> str:
    """The id of an item's content: the same kind, body and scope written twice give the same id."""
    digest = hashlib.sha256(canonical_json([kind, dict(body), dict(scope)]).encode("utf-8")).hexdigest()
    return "k-" + digest[:24]


ID_KEY_DIGITS = 15  # 60 bits: a whole number both backends hold exactly
ID_KEY_SPAN = 16**ID_KEY_DIGITS  # every id key lies in [0, ID_KEY_SPAN)
_ID_KEY = re.compile(rf"k-[0-9a-f]{{{ID_KEY_DIGITS}}}")


def id_key(item_id: str) -> int | None:
    """The whole number of a content id's first hex digits, in the ids' own order (an id that sorts before
    another has a key no greater): what a page of items by id is read by, window by window (Item.id_key,
    indexed), on a backend whose index cannot bound a string range. None for a string no content id begins
    with."""
    return int(item_id[2:2 + ID_KEY_DIGITS], 16) if _ID_KEY.match(item_id) else None


def key_of(body: Mapping[str, Any], scope: Mapping[str, Any]) -> str | None:
    """The key `(scope, s, r)` as a string, for a body with a subject and a relation; None otherwise.

    One value per key stands at a time.
    """
    if "s" not in body or "r" not in body:
        return None
    return canonical_json([dict(scope), body["s"], body["r"]])


def value_of(body: Mapping[str, Any]) -> str:
    """What an item says about its key: its object `o`, or the rest of its body, as canonical JSON."""
    if "o" in body:
        return canonical_json(body["o"])
    return canonical_json({k: v for k, v in body.items() if k not in ("s", "r")})


def scope_matches(scope: Mapping[str, Any], pattern: Mapping[str, Any]) -> bool:
    """Does `scope` fall under `pattern`: every key of the pattern has the same value in the scope?"""
    return all(
        name in scope and canonical_json(scope[name]) == canonical_json(value)
        for name, value in pattern.items()
    )


def scalar(value: Any) -> Any:
    """A value as a graph property: scalars as they are, anything else as canonical JSON."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return canonical_json(value)


@dataclass(frozen=True, slots=True)
class Proposal:
    """An item as a writer proposes it, shape-checked; nothing about the store is known yet."""

    kind: str
    body: dict[str, Any]
    scope: dict[str, Any]
    source: str
    by: str
    derived_from: tuple[str, ...] = ()
    supersedes: str | None = None
    reconfirm_after: int | None = None
    valid: tuple[Any, Any] | None = None
    level: str | None = None
    of: str | None = None
    evidence: list[Any] = field(default_factory=list)
    shadow: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return content_id(self.kind, self.body, self.scope)

    @property
    def key(self) -> str | None:
        return key_of(self.body, self.scope)

    @property
    def value(self) -> str:
        return value_of(self.body)

    def as_payload(self) -> dict[str, Any]:
        """The proposal as plain JSON, the way a journal entry carries it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "body": self.body,
            "scope": self.scope,
            "source": self.source,
            "by": self.by,
            "derived_from": list(self.derived_from),
            "supersedes": self.supersedes,
            "reconfirm_after": self.reconfirm_after,
            "valid": None if self.valid is None else list(self.valid),
            "level": self.level,
            "of": self.of,
            "evidence": self.evidence,
        }


def _plain_json(value: Any, name: str) -> Any:
    try:
        canonical_json(value)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{name} must be plain JSON ({exc})", field=name) from exc
    return value


def _optional_str(raw: Mapping[str, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise UserError(f"{name} must be a non-empty string", field=name)
    return value


def parse_proposal(raw: Mapping[str, Any], *, by: str) -> Proposal:
    """Check the shape of a proposed item and return it; raise UserError naming the bad field.

    The source is only checked to be a string here: an unknown source is not malformed input but a
    refusal the write gates record in the journal.
    """
    kind = raw.get("kind")
    if kind not in KINDS:
        raise UserError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}", field="kind")
    body = raw.get("body")
    if not isinstance(body, dict):
        raise UserError("body must be an object", field="body")
    _plain_json(body, "body")
    if kind == "fact":
        missing = [name for name in ("s", "r", "o") if name not in body]
        if missing:
            raise UserError(f"a fact needs s, r and o; missing {', '.join(missing)}", field="body")
        if not isinstance(body["s"], str) or not isinstance(body["r"], str):
            raise UserError("a fact's s and r must be strings", field="body")
    if kind == "action":
        missing = [name for name in ("preconditions", "effects") if name not in body]
        if missing:
            raise UserError(
                f"an action needs preconditions and effects; missing {', '.join(missing)}", field="body"
            )
    scope = raw.get("scope") or {}
    if not isinstance(scope, dict):
        raise UserError("scope must be an object", field="scope")
    _plain_json(scope, "scope")
    source = raw.get("source")
    if not isinstance(source, str):
        raise UserError("source must be a string", field="source")
    derived = raw.get("derived_from") or []
    if not isinstance(derived, (list, tuple)) or not all(isinstance(p, str) and p for p in derived):
        raise UserError("derived_from must be a list of item ids", field="derived_from")
    reconfirm = raw.get("reconfirm_after")
    if reconfirm is not None and (
        isinstance(reconfirm, bool) or not isinstance(reconfirm, int) or reconfirm < 1
    ):
        raise UserError(
            "reconfirm_after must be a positive whole number of clock units", field="reconfirm_after"
        )
    valid = raw.get("valid")
    if valid is not None:
        if not isinstance(valid, (list, tuple)) or len(valid) != 2:
            raise UserError("valid must be a pair [since, until]", field="valid")
        if not all(
            v is None or (isinstance(v, (str, int, float)) and not isinstance(v, bool)) for v in valid
        ):
            raise UserError("valid's ends must be numbers, strings or null", field="valid")
        valid = (valid[0], valid[1])
    evidence = raw.get("evidence") or []
    if not isinstance(evidence, list):
        raise UserError("evidence must be a list", field="evidence")
    _plain_json(evidence, "evidence")
    shadow = raw.get("shadow")
    if shadow is not None and not isinstance(shadow, dict):
        raise UserError("shadow must be an object", field="shadow")
    who = raw.get("by") or by
    if not isinstance(who, str):
        raise UserError("by must be a string", field="by")
    return Proposal(
        kind=kind,
        body=dict(body),
        scope=dict(scope),
        source=source,
        by=who,
        derived_from=tuple(dict.fromkeys(derived)),
        supersedes=_optional_str(raw, "supersedes"),
        reconfirm_after=reconfirm,
        valid=valid,
        level=_optional_str(raw, "level"),
        of=_optional_str(raw, "of"),
        evidence=list(evidence),
        shadow=None if shadow is None else dict(_plain_json(shadow, "shadow")),
    )
