"""Pure replays of the journal: the store as it was, or as if some items had never been written."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from graph_service.journal.chain import Entry, canonical_json
from graph_service.knowledge.gates import DEFAULT_GATES, Gate
from graph_service.knowledge.ops import SNAPSHOT, subject_of
from graph_service.knowledge.snapshot import given_part
from graph_service.knowledge.state import KnowledgeState


def rebuild(
    entries: Iterable[Entry],
    upto: int | None = None,
    skip: Iterable[str] = frozenset(),
    *,
    gates: Iterable[Gate] = DEFAULT_GATES,
    reconfirm_defaults: Mapping[tuple[str, str], int | None] | None = None,
) -> KnowledgeState:
    """The state the journal gives: entries applied in order up to position `upto` (inclusive).

    `skip` names items whose own entries (assertions, refusals, promotions, retractions ...) are left
    out, as if never written; premises naming a skipped item stay in what was derived from it, dead.
    Entries of other domains are passed over.
    """
    skipped = frozenset(skip)
    state = KnowledgeState(gates, reconfirm_defaults)
    for entry in entries:
        if upto is not None and entry.seq > upto:
            break
        if not state.handles(entry.op) or subject_of(entry) in skipped:
            state.advance(entry.seq)
            continue
        state.apply(entry)
    return state


Decide = Callable[[dict[str, Any]], Any]


def given_facts(snapshot: dict[str, Any]) -> list[Any]:
    """What a decision answers on (the service cannot run a client's decision): the body of each fact it was
    given (s, r, o for facts), sorted."""
    bodies = [f["body"] for f in snapshot["facts"]]
    return sorted(([b["s"], b["r"], b["o"]] if {"s", "r", "o"} <= set(b) else b for b in bodies), key=canonical_json)


def redecide(
    entries: Iterable[Entry],
    retracted: Iterable[str],
    decide: Decide,
    recorded: Mapping[str, dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Re-run the recorded decisions whose snapshot changes once `retracted` items are left out.

    `recorded` maps snapshot ids to the snapshots decisions were given (default: a full replay's).
    Each changed decision is run on its old and its new snapshot: those whose answer differs go to
    the first list (for a reviewer), the rest to the second ("justification only"), each as
    `{"id", "old", "new"}`. Two passes over the journal, whatever the number of decisions.
    """
    journal = list(entries)
    old = dict(recorded) if recorded is not None else rebuild(journal).snapshots
    new = rebuild(journal, skip=frozenset(retracted)).snapshots
    answer_changes: list[dict[str, Any]] = []
    justification_only: list[dict[str, Any]] = []
    order = [f"snap-{e.seq}" for e in journal if e.op == SNAPSHOT]
    for snap_id in order:
        if snap_id not in old or snap_id not in new:
            continue
        if given_part(old[snap_id]) == given_part(new[snap_id]):
            continue
        before, after = decide(old[snap_id]), decide(new[snap_id])
        bucket = answer_changes if before != after else justification_only
        bucket.append({"id": snap_id, "old": before, "new": after})
    return answer_changes, justification_only
