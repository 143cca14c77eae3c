"""Planning: check a request against the current state, without changing it, and draft its one entry.

Each function returns the `Draft` to append (then `KnowledgeState.apply` the committed entry) or
raises `UserError` / `NotFound` / `Conflict` naming what was wrong. Gate verdicts, refusals and
holds travel inside the one entry, so a client request is exactly one journal entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph_service.domain import Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import canonical_json
from graph_service.journal.payloads import JSON_SAFE_INT
from graph_service.knowledge import ops
from graph_service.knowledge.gates import SourceGate, run_gates
from graph_service.knowledge.items import KINDS, default_reconfirm_after, parse_proposal
from graph_service.knowledge.snapshot import normalise_query
from graph_service.knowledge.state import KnowledgeState
from graph_service.partial_reads import read_ahead


def _why(why: str | None) -> str:
    if why is not None and not isinstance(why, str):
        raise UserError("why must be a string", field="why")
    return why or ""


def _known(state: KnowledgeState, item_id: Any, field: str = "id") -> str:
    if not isinstance(item_id, str) or item_id not in state.items:
        raise NotFound(f"no item {item_id!r} in the store", field=field)
    return item_id


def _live(state: KnowledgeState, item_id: Any, field: str = "id") -> str:
    _known(state, item_id, field)
    if not state.items[item_id].live():
        raise Conflict(f"item {item_id} is already retracted", field=field)
    return item_id


def plan_add(state: KnowledgeState, raw: Mapping[str, Any], *, by: str) -> Draft:
    """Draft an `item.add` (admitted: present, promoted or held) or an `item.refused` saying why.

    Malformed input (unknown kind, a fact without s/r/o, a missing premise ...) raises instead.
    """
    proposal = parse_proposal(raw, by=by)
    source_verdict = SourceGate().check(proposal, state)
    if source_verdict.outcome == "refuse":
        return _refusal(proposal, source_verdict.why, [source_verdict.as_json()])
    # The premises, the item itself and what it supersedes are read next, in turn: in one round from the graph.
    read_ahead(state.items, [*proposal.derived_from, proposal.id, *filter(None, [proposal.supersedes])])
    for premise in proposal.derived_from:
        if premise not in state.items:
            raise NotFound(f"premise {premise} is not in the store", field="derived_from")
        if not state.items[premise].live():
            raise Conflict(f"premise {premise} is retracted", field="derived_from")
    item_id = proposal.id
    if item_id in proposal.derived_from:
        raise UserError("an item cannot rest on itself", field="derived_from")
    if item_id in state.items and item_id in state.premise_closure(proposal.derived_from):
        raise Conflict(f"{item_id} would rest on something that rests on it", field="derived_from")
    if proposal.supersedes is not None:
        _known(state, proposal.supersedes, "supersedes")
        if proposal.supersedes == item_id:
            raise UserError("an item cannot supersede itself", field="supersedes")
    admission = run_gates(proposal, state.gates, state)
    verdicts = [v.as_json() for v in admission.verdicts]
    if admission.refused:
        return _refusal(proposal, admission.why, verdicts)
    payload = proposal.as_payload()
    if payload["reconfirm_after"] is None:
        payload["reconfirm_after"] = default_reconfirm_after(
            proposal.kind, proposal.source, state.reconfirm_defaults
        )
    payload.update(admission=admission.outcome, why=admission.why, verdicts=verdicts)
    return Draft(ops.ADD, payload)


def _refusal(proposal: Any, why: str, verdicts: list[dict[str, Any]]) -> Draft:
    payload = {
        "id": proposal.id,
        "kind": proposal.kind,
        "body": proposal.body,
        "scope": proposal.scope,
        "source": proposal.source,
        "by": proposal.by,
        "why": why,
        "verdicts": verdicts,
    }
    return Draft(ops.REFUSED, payload)


def plan_promote(state: KnowledgeState, item_id: str, why: str | None = None) -> Draft:
    """Draft promoting a held rule, skill or action (a person, or gates passed later)."""
    _live(state, item_id)
    rec = state.items[item_id]
    if rec.kind in ("fact", "episode"):
        raise Conflict(f"{item_id} is a {rec.kind}: facts and episodes are never held", field="id")
    if rec.promoted:
        raise Conflict(f"{item_id} is already promoted", field="id")
    return Draft(ops.PROMOTE, {"id": item_id, "why": _why(why)})


def plan_retract(state: KnowledgeState, item_id: str, why: str | None = None) -> Draft:
    """Draft taking an item back, with everything derived from it."""
    return Draft(ops.RETRACT, {"id": _live(state, item_id), "why": _why(why)})


def plan_rollback(state: KnowledgeState, item_id: str, why: str | None = None) -> Draft:
    """Draft undoing an update: the item goes, the version it replaced comes back (a hint under a flag)."""
    return Draft(ops.ROLLBACK, {"id": _live(state, item_id), "why": _why(why)})


def plan_retire(state: KnowledgeState, item_id: str, why: str | None = None) -> Draft:
    """Draft retiring an item its producer no longer stands behind (it becomes expired)."""
    return Draft(ops.RETIRE, {"id": _live(state, item_id), "why": _why(why)})


def plan_reconfirm(state: KnowledgeState, item_id: str, why: str | None = None) -> Draft:
    """Draft a flag on one item asking for its re-confirmation."""
    return Draft(ops.RECONFIRM, {"id": _live(state, item_id), "why": _why(why) or "reconfirm"})


def plan_flag(
    state: KnowledgeState,
    *,
    why: str,
    scope: Mapping[str, Any] | None = None,
    ids: Sequence[str] | None = None,
    key: str | None = None,
) -> Draft:
    """Draft a drift / open-set flag over exactly one of: a scope pattern, item ids, or a key."""
    if not isinstance(why, str) or not why.strip():
        raise UserError("a flag needs a reason (why); it is empty or blank", field="why")
    given = [name for name, value in (("scope", scope), ("ids", ids), ("key", key)) if value is not None]
    if len(given) != 1:
        raise UserError("a flag covers exactly one of scope, ids or key", field="scope")
    if ids is not None:
        if isinstance(ids, str) or not ids:
            raise UserError("ids must be a non-empty list of item ids", field="ids")
        for item_id in ids:
            _known(state, item_id, "ids")
        return Draft(ops.FLAG, {"ids": list(dict.fromkeys(ids)), "why": why})
    if key is not None:
        if key not in state.by_key:
            raise NotFound(f"no item on key {key}", field="key")
        return Draft(ops.FLAG, {"key": key, "why": why})
    if not isinstance(scope, Mapping):
        raise UserError("scope must be an object", field="scope")
    try:
        canonical_json(dict(scope))
    except (TypeError, ValueError) as exc:
        raise UserError(f"scope must be plain JSON ({exc})", field="scope") from exc
    return Draft(ops.FLAG, {"scope": dict(scope), "why": why})


def plan_end_flag(state: KnowledgeState, flag_id: str) -> Draft:
    """Draft ending a pending flag."""
    flag = state.flags.get(flag_id) if isinstance(flag_id, str) else None
    if flag is None:
        raise NotFound(f"no flag {flag_id!r}", field="flag")
    if not flag.pending:
        raise Conflict(f"flag {flag_id} already ended at {flag.ended_at}", field="flag")
    return Draft(ops.END_FLAG, {"flag": flag_id})


def plan_resolve(state: KnowledgeState, key: str, value: Any, why: str | None = None) -> Draft:
    """Draft a person's answer to the open dispute on `key`: `value` (an item's o) wins."""
    # The key's own disputes, not every open one filtered: a planner on what it reads asks for one key's.
    open_here = sorted((e for e in state.dispute_events.get(key, ()) if e.open), key=lambda e: e.opened_at)
    if not open_here:
        raise Conflict(f"no open dispute on key {key}", field="key")
    try:
        wanted = canonical_json(value)
    except (TypeError, ValueError) as exc:
        raise UserError(f"value must be plain JSON ({exc})", field="value") from exc
    sides = open_here[0].values
    if wanted not in sides:
        raise UserError(f"value {wanted} is not one of the disputed values {', '.join(sides)}", field="value")
    return Draft(ops.RESOLVE, {"key": key, "value": wanted, "why": _why(why)})


def plan_tick(state: KnowledgeState, k: int) -> Draft:
    """Draft advancing the store clock by k (a whole number, not negative)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise UserError(f"tick needs a whole number of clock units, not negative; got {k!r}", field="k")
    if state.clock + k > JSON_SAFE_INT[1]:
        # Every clock time is written in entries and read back by verifiers in other languages: keep it exact.
        raise UserError(f"tick by {k} would take the store clock from {state.clock} past 2^53 - 1, the largest "
                        "integer JSON holds exactly", field="k")
    return Draft(ops.TICK, {"k": k})


def plan_used(state: KnowledgeState, ids: Sequence[str], wrong: bool = False) -> Draft:
    """Draft counting a use of each item (and that the decision was wrong, when it was)."""
    if isinstance(ids, str) or not ids:
        raise UserError("ids must be a non-empty list of item ids", field="ids")
    for item_id in ids:
        _known(state, item_id, "ids")
    if not isinstance(wrong, bool):
        raise UserError("wrong must be true or false", field="wrong")
    return Draft(ops.USED, {"ids": list(dict.fromkeys(ids)), "wrong": wrong})


def plan_snapshot(
    state: KnowledgeState,
    about: str | Sequence[str] | None = None,
    relation: str | None = None,
    scope: Mapping[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
) -> Draft:
    """Draft recording the snapshot a decision is given (so redecide can rebuild it later)."""
    if kinds is not None:
        unknown = sorted(set(kinds) - set(KINDS))
        if isinstance(kinds, str) or unknown:
            raise UserError(f"unknown kind(s) {unknown or kinds!r}", field="kinds")
    if about is not None and not isinstance(about, str) and not all(isinstance(s, str) for s in about):
        raise UserError("about must be a subject or a list of subjects", field="about")
    # A blank subject or relation matches nothing: a snapshot of it records an empty view as if asked for.
    if about is not None and any(not s.strip() for s in ([about] if isinstance(about, str) else about)):
        raise UserError("about must not hold an empty or blank subject", field="about")
    if relation is not None and not relation.strip():
        raise UserError("relation must not be empty or blank", field="relation")
    if scope is not None and not isinstance(scope, Mapping):
        raise UserError("scope must be an object", field="scope")
    return Draft(ops.SNAPSHOT, normalise_query(about, relation, dict(scope) if scope else None, kinds))
