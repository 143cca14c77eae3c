"""Reads over the knowledge state: find, open disputes, the report, upstream and component."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graph_service.knowledge.items import scope_matches
from graph_service.knowledge.records import dispute_id, question_text
from graph_service.knowledge.walks import downstream, upstream

if TYPE_CHECKING:
    from graph_service.knowledge.state import KnowledgeState

FIND_FILTERS: tuple[str, ...] = (
    "ids",
    "kind",
    "status",
    "source",
    "by",
    "s",
    "r",
    "o",
    "key",
    "scope",
    "stale",
)


def find(state: KnowledgeState, filters: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Item records (node properties) matching every filter given, by id.

    `status` and `kind` take one value or a list; `scope` is a pattern the item's scope falls
    under; `stale` compares with `stale(id)` (flags and clock). Unknown filter names are an error.
    """
    unknown = sorted(set(filters) - set(FIND_FILTERS))
    if unknown:
        raise ValueError(
            f"unknown filter(s) {', '.join(unknown)}; expected some of {', '.join(FIND_FILTERS)}"
        )
    if filters.get("ids") is not None:
        candidates = [i for i in dict.fromkeys(filters["ids"]) if i in state.items]
    elif filters.get("key") is not None:
        candidates = sorted(state.by_key.get(filters["key"], ()))
    elif filters.get("s") is not None:
        candidates = sorted(state.by_subject.get(filters["s"], ()))
    else:
        candidates = sorted(state.items)

    def wanted(name: str, value: Any) -> bool:
        want = filters.get(name)
        if want is None:
            return True
        return value in want if isinstance(want, (list, tuple, set, frozenset)) else value == want

    found = []
    for item_id in candidates:
        rec = state.items[item_id]
        props = rec.props or {}
        if not all(wanted(n, props.get(n)) for n in ("kind", "status", "source", "by", "r", "key")):
            continue
        if filters.get("s") is not None and rec.body.get("s") != filters["s"]:
            continue
        if "o" in filters and filters["o"] is not None and rec.body.get("o") != filters["o"]:
            continue
        if filters.get("scope") is not None and not scope_matches(rec.scope, filters["scope"]):
            continue
        if filters.get("stale") is not None and bool(state.stale_reasons(item_id)) != bool(filters["stale"]):
            continue
        found.append(dict(props))
    return found


def open_disputes(state: KnowledgeState) -> list[dict[str, Any]]:
    """The disputes awaiting a person, oldest first: one question per dispute event."""
    events = sorted(state.open_disputes.values(), key=lambda e: (e.opened_at, e.key))
    return [
        {
            "id": dispute_id(e),
            "question": question_text(e),
            "key": e.key,
            "values": list(e.values),
            "items": list(e.items),
            "opened_at": e.opened_at,
        }
        for e in events
    ]


def report(state: KnowledgeState) -> dict[str, Any]:
    """What was learned and from whom; what is refuted, retracted, expired, disputed, flagged, refused."""
    statuses = Counter(rec.status for rec in state.items.values())
    present = [rec for rec in state.items.values() if rec.status != "retracted"]
    return {
        "items": len(state.items),
        "by_status": dict(sorted(statuses.items())),
        "by_kind": dict(sorted(Counter(rec.kind for rec in present).items())),
        "by_source": dict(sorted(Counter((rec.props or {}).get("source") for rec in present).items())),
        "by_whom": dict(sorted(Counter((rec.props or {}).get("by") for rec in present).items())),
        "refused": len(state.refusals),
        "recent_refusals": state.refusals[-10:],
        "open_disputes": len(state.open_disputes),
        "pending_flags": sorted(f.id for f in state.flags.values() if f.pending),
        "clock": state.clock,
        "position": state.position,
        "fingerprint": state.fingerprint(),
    }


def upstream_of(state: KnowledgeState, ids: list[str]) -> dict[str, int]:
    """Items whose state can change the state of `ids` (premises transitively, same-key competitors)."""

    def premises(node: str) -> list[str]:
        rec = state.items.get(node)
        return [] if rec is None else rec.premises()

    def competitors(node: str) -> list[str]:
        rec = state.items.get(node)
        if rec is None or rec.key is None:
            return []
        return sorted(state.by_key[rec.key] - {node})

    return upstream(ids, premises, competitors)


def dependents_of(state: KnowledgeState, ids: list[str]) -> dict[str, int]:
    """Items resting on `ids`, transitively, with their level: what falls if they go."""
    return downstream(ids, lambda node: sorted(state.dependents_of.get(node, ())))
