"""What a decision is given: the facts and hints that match a query, with what they rest on.

Facts are active and not stale; hints are hypotheses, expired or stale items, each with why.
Disputed, refuted and retracted items are never given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from graph_service.knowledge.items import scope_matches

if TYPE_CHECKING:
    from graph_service.knowledge.state import KnowledgeState

_HINT_STATUSES = frozenset({"hypothesis", "expired"})


def normalise_query(
    about: str | Sequence[str] | None = None,
    relation: str | None = None,
    scope: dict[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The query as plain JSON: about as a sorted list of subjects or None, kinds as a sorted list or None."""
    subjects = None if about is None else sorted({about} if isinstance(about, str) else set(about))
    return {
        "about": subjects,
        "relation": relation,
        "scope": dict(scope) if scope else None,
        "kinds": None if kinds is None else sorted(set(kinds)),
    }


def _candidates(state: KnowledgeState, query: dict[str, Any]) -> Iterable[str]:
    if query["about"] is None:
        return sorted(state.items)
    return sorted({i for s in query["about"] for i in state.by_subject.get(s, ())})


def given_row(state: KnowledgeState, item_id: str) -> dict[str, Any]:
    """One item as a decision reads it."""
    rec = state.items[item_id]
    props = rec.props or {}
    return {
        "id": rec.id,
        "kind": rec.kind,
        "body": rec.body,
        "scope": rec.scope,
        "source": props.get("source"),
        "rank": props.get("rank"),
        "status": rec.status,
    }


def take_snapshot(
    state: KnowledgeState,
    about: str | Sequence[str] | None = None,
    relation: str | None = None,
    scope: dict[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The snapshot a decision is given now: facts, hints (with why), ids, fingerprint, position, query."""
    query = normalise_query(about, relation, scope, kinds)
    facts: list[dict[str, Any]] = []
    hints: list[dict[str, Any]] = []
    for item_id in _candidates(state, query):
        rec = state.items[item_id]
        if relation is not None and rec.body.get("r") != relation:
            continue
        if query["kinds"] is not None and rec.kind not in query["kinds"]:
            continue
        if query["scope"] is not None and not scope_matches(rec.scope, query["scope"]):
            continue
        stale = state.stale_reasons(item_id)
        if rec.status == "active" and not stale:
            facts.append(given_row(state, item_id))
        elif rec.status in _HINT_STATUSES or (rec.status == "active" and stale):
            why = list(rec.verdict.reasons) + [r for r in stale if r not in rec.verdict.reasons]
            hints.append({**given_row(state, item_id), "why": why})
    given = [row["id"] for row in facts + hints]
    return {
        "query": query,
        "facts": facts,
        "hints": hints,
        "ids": sorted(state.premise_closure(given)),
        "fingerprint": state.fingerprint(),
        "position": state.position,
    }


def given_part(snapshot: dict[str, Any]) -> tuple[Any, Any]:
    """What a decision actually read (facts and hints), without the store-wide fingerprint and position."""
    return snapshot["facts"], snapshot["hints"]
