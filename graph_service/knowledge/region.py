"""Where the region of the knowledge store that one entry's rules read starts. Pure.

Applying a knowledge entry re-decides the whole components (premises both ways, shared keys, supersedes)
of the items it touches: `KnowledgeState._recompute`, whose incremental evaluation is checked to give the
verdicts, projections and disputes of evaluating those components whole. So a state that holds exactly
those components, with the flags covering their items, the disputes about them, the resolutions on their
keys and the store clock, applies the entry as the whole store's state does: the state a write without a
copy of the store plans and applies on. `region_start` says where the components start (the items, keys
and flags the entry names); graph_service.from_graph.knowledge_region walks the graph from there and reads the rest.

Three writes read beyond what they name, and have no region yet (RegionUnknown): a tick (the items whose
re-confirmation period it runs out, found in memory by the expiry heap), a snapshot (every item its query
matches, and the store's fingerprint), and a flag over a scope (every item the scope matches).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph_service.knowledge import ops
from graph_service.knowledge.items import content_id, key_of

# The item's own entries, each naming it by `id`.
_OWN_ITEM_OPS = frozenset({ops.PROMOTE, ops.RETRACT, ops.ROLLBACK, ops.RETIRE, ops.RECONFIRM})


class RegionUnknown(LookupError):
    """The entry's rules read items it does not name (see the module's docstring): no region to read."""


@dataclass(frozen=True, slots=True)
class RegionStart:
    """What an entry names: items, keys (every item on them) and flags (every item they cover)."""

    items: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()

    def __or__(self, other: RegionStart) -> RegionStart:
        return RegionStart(self.items | other.items, self.keys | other.keys, self.flags | other.flags)


def region_start(op: str, payload: Mapping[str, Any]) -> RegionStart:
    """Where the region of one knowledge operation starts; RegionUnknown for a tick, a snapshot and a flag
    over a scope. The payload is a committed entry's (its planner checked it)."""
    if op == ops.ADD:
        body, scope = payload["body"], payload.get("scope") or {}
        key = key_of(body, scope)
        named = {content_id(payload["kind"], body, scope), *(payload.get("derived_from") or ())}
        if payload.get("supersedes"):
            named.add(payload["supersedes"])
        return RegionStart(frozenset(named), frozenset(() if key is None else (key,)))
    if op in _OWN_ITEM_OPS:
        return RegionStart(frozenset({payload.get("id", "")}))
    if op == ops.USED:
        return RegionStart(frozenset(payload.get("ids") or ()))
    if op == ops.FLAG:
        if payload.get("ids") is not None:
            return RegionStart(frozenset(payload["ids"]))
        if payload.get("key") is not None:
            return RegionStart(keys=frozenset({payload["key"]}))
        raise RegionUnknown("a flag over a scope covers every item the scope matches, which no index finds")
    if op == ops.END_FLAG:
        return RegionStart(flags=frozenset({payload.get("flag", "")}))
    if op == ops.RESOLVE:
        return RegionStart(keys=frozenset({payload.get("key", "")}))
    if op == ops.REFUSED:
        return RegionStart()
    if op == ops.TICK:
        raise RegionUnknown("a tick re-decides every item whose re-confirmation period it runs out")
    if op == ops.SNAPSHOT:
        raise RegionUnknown("a snapshot reads every item its query matches, and the store's fingerprint")
    raise ValueError(f"{op!r} is not a knowledge operation")


def entry_region_start(knowledge_ops: Iterable[tuple[str, Mapping[str, Any]]]) -> RegionStart:
    """Where the region of an entry's knowledge operations (itself, or an answer's) starts: their union."""
    start = RegionStart()
    for op, payload in knowledge_ops:
        start |= region_start(op, payload)
    return start
