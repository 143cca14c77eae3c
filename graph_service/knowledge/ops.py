"""The journal operations of the knowledge store, and what an entry names (the item it is about, the items and
keys it reads first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph_service.journal.chain import Entry
from graph_service.journal.clock import TICK
from graph_service.knowledge.items import key_of

ADD = "item.add"
REFUSED = "item.refused"
PROMOTE = "item.promote"
RETRACT = "item.retract"
ROLLBACK = "item.rollback"
RETIRE = "item.retire"
RECONFIRM = "item.reconfirm"
USED = "item.used"
FLAG = "flag.raise"
END_FLAG = "flag.end"
RESOLVE = "dispute.resolve"
SNAPSHOT = "snapshot.take"

KNOWLEDGE_OPS: tuple[str, ...] = (
    ADD,
    REFUSED,
    PROMOTE,
    RETRACT,
    ROLLBACK,
    RETIRE,
    RECONFIRM,
    USED,
    FLAG,
    END_FLAG,
    RESOLVE,
    TICK,
    SNAPSHOT,
)

# Entries that are an item's own: left out when the store is rebuilt as if that item had never been written.
_OWN_ENTRY_OPS = frozenset({ADD, REFUSED, PROMOTE, RETRACT, ROLLBACK, RETIRE, RECONFIRM})


def subject_of(entry: Entry) -> str | None:
    """The item an entry is the item's own entry about, or None for entries about several or none."""
    if entry.op in _OWN_ENTRY_OPS:
        subject = entry.payload.get("id")
        return subject if isinstance(subject, str) else None
    return None


def items_named(op: str, payload: Mapping[str, Any]) -> list[str]:
    """The items a knowledge operation's payload names (the item it is about, an addition's premises and what it
    supersedes, the items it flags or counts as used): what applying it reads first. Total on any payload: what
    is not a string id is left out (the rules, not this, decide what a payload means)."""
    named: list[Any] = [payload.get("id")] if op in _OWN_ENTRY_OPS else []
    if op == ADD:
        named += [*_listed(payload.get("derived_from")), payload.get("supersedes")]
    elif op in (FLAG, USED):
        named += _listed(payload.get("ids"))
    return [i for i in named if isinstance(i, str)]


def keys_named(op: str, payload: Mapping[str, Any]) -> list[str]:
    """The keys a knowledge operation's payload names (an addition's own, a flag's or a resolution's): what
    applying it reads of them first. Total on any payload, as `items_named`."""
    if op == ADD:
        body, scope = payload.get("body"), payload.get("scope") or {}
        try:
            named = key_of(body, scope) if isinstance(body, Mapping) and isinstance(scope, Mapping) else None
        except (TypeError, ValueError):  # a value canonical JSON does not write: the rules refuse it
            named = None
    else:
        named = payload.get("key") if op in (FLAG, RESOLVE) else None
    return [named] if isinstance(named, str) else []


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []
