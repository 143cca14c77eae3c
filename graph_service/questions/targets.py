"""The open targets of the whole store: disputes, stale items and unknowns, counted for materiality.

The selection core ranks plain `Candidate` records; this module builds them from the knowledge
state and the question state after the last applied entry. Materiality counts, per target:

- dependents: items resting on the target's items, transitively (for an unknown: the items it
  affects and everything resting on them);
- snapshots: recorded snapshots whose facts or hints read one of those items;
- decisions: decisions (recorded snapshot ids) declared to bear on it: an unknown's own, or for an
  item or dispute those of the open unknowns that affect its items.

Pure: reads both states, changes neither.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from graph_service.domain import Draft
from graph_service.journal.chain import canonical_json
from graph_service.knowledge.items import CONFIRMING_SOURCES
from graph_service.knowledge.records import FlagRecord, ItemRecord, dispute_id
from graph_service.knowledge.rules import DisputeEvent
from graph_service.questions.candidates import DISPUTE, STALE_ITEM, Candidate
from graph_service.questions.resting import DerivedFrom, RestingCounts
from graph_service.questions.state import QuestionState

if TYPE_CHECKING:
    from graph_service.knowledge.state import KnowledgeState

# A retracted or refuted item needs no re-confirmation; a disputed one is asked about as a dispute.
NOT_ASKED_AS_STALE = frozenset({"retracted", "refuted", "disputed"})
MAX_SUBJECT = 200


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)


def _where(scope: Any) -> str | None:
    """A scope as question context ('project: apollo'), None when the item is unscoped."""
    if not isinstance(scope, dict) or not scope:
        return None
    return ", ".join(f"{name}: {_shown(value)}" for name, value in sorted(scope.items()))


def _disputed_value(canonical: str) -> str:
    return _shown(json.loads(canonical))


def _item_subject(rec: ItemRecord) -> tuple[str, tuple[str, ...]]:
    """What a question about the item names: 's r' and its current value for a fact, else its body."""
    if rec.key is not None:
        values = (_shown(rec.body["o"]),) if "o" in rec.body else ()
        return f"{_shown(rec.body['s'])} {_shown(rec.body['r'])}", values
    body = canonical_json(rec.body)
    if len(body) > MAX_SUBJECT:
        body = body[: MAX_SUBJECT - 1] + "…"
    return f"the {rec.kind} {body}", ()


class KnowledgeTargets(Protocol):
    """What the open targets read of the knowledge store: the in-memory state (`StateTargets`) or the graph
    (graph_service.from_graph.targets), giving the same answers."""

    def open_disputes(self) -> list[DisputeEvent]:
        """Every open dispute."""

    def stale_candidates(self) -> list[ItemRecord]:
        """Every item that may await re-confirmation (a pending flag covers it, or the clock ran its period
        out), and maybe more: TargetView.stale_item decides."""

    def present(self, ids: Iterable[str]) -> list[str]:
        """Those of `ids` that are items, in the order given."""

    def derived_below(self, ids: list[str]) -> DerivedFrom:
        """Each of `ids` and every item resting on them (derived from them, transitively), mapped to the items
        derived directly from it (an item none is derived from may be left out); it may map more."""

    def snapshots_reading(self, ids: list[str]) -> set[str]:
        """The recorded snapshots that read any of `ids` as a fact or a hint."""

    def stale_reasons(self, item_id: str) -> list[str]:
        """Why the item must be re-confirmed (KnowledgeState.stale_reasons)."""

    def flag(self, flag_id: str) -> FlagRecord | None:
        """The flag's record, None for one never raised."""


class StateTargets:
    """KnowledgeTargets of a whole knowledge state in memory."""

    def __init__(self, knowledge: KnowledgeState) -> None:
        self.knowledge = knowledge
        self._read_by: dict[str, set[str]] | None = None

    def open_disputes(self) -> list[DisputeEvent]:
        return list(self.knowledge.open_disputes.values())

    def stale_candidates(self) -> list[ItemRecord]:
        return list(self.knowledge.items.values())

    def present(self, ids: Iterable[str]) -> list[str]:
        return [i for i in dict.fromkeys(ids) if i in self.knowledge.items]

    def derived_below(self, ids: list[str]) -> DerivedFrom:
        return self.knowledge.dependents_of

    def snapshots_reading(self, ids: list[str]) -> set[str]:
        if self._read_by is None:
            self._read_by = {}
            for snap_id, snap in self.knowledge.snapshots.items():
                for row in (*snap["facts"], *snap["hints"]):
                    self._read_by.setdefault(row["id"], set()).add(snap_id)
        return set().union(*(self._read_by.get(i, set()) for i in ids))

    def stale_reasons(self, item_id: str) -> list[str]:
        return self.knowledge.stale_reasons(item_id)

    def flag(self, flag_id: str) -> FlagRecord | None:
        return self.knowledge.flags.get(flag_id)


class TargetView:
    """The open targets of one state, with the indexes their materiality needs (built once)."""

    def __init__(self, knowledge: KnowledgeTargets, questions: QuestionState) -> None:
        self.knowledge = knowledge
        self.questions = questions
        self._resting = RestingCounts()
        self._decided_by: dict[str, set[str]] = {}
        for unknown in questions.unknowns(answered=False):
            for item_id in unknown.affects:
                self._decided_by.setdefault(item_id, set()).update(unknown.decisions)

    # --- materiality ---------------------------------------------------------------------------

    def _counts(self, items: Iterable[str], *, own: Iterable[str] | None = None) -> dict[str, int]:
        """Materiality inputs for targets standing on `items`; `own` are an unknown's own decisions
        (an unknown counts the items it affects among its dependents)."""
        present = self.knowledge.present(items)
        resting = self._resting.count(present, self.knowledge.derived_below(present), with_ids=own is not None)
        decisions = set().union(*(self._decided_by.get(i, set()) for i in present)) if own is None else set(own)
        snapshots = self.knowledge.snapshots_reading(present)
        return {"dependents": resting, "snapshots": len(snapshots), "decisions": len(decisions)}

    # --- candidates ----------------------------------------------------------------------------

    def dispute(self, event: DisputeEvent) -> Candidate:
        scope, subject, relation = json.loads(event.key)
        return Candidate(
            id=dispute_id(event),
            kind=DISPUTE,
            opened_at=event.opened_at,
            subject=f"{_shown(subject)} {_shown(relation)}",
            parent=_where(scope),
            values=tuple(_disputed_value(v) for v in event.values),
            resolved=not event.open,
            **self._counts(event.items),
        )

    def stale_item(self, rec: ItemRecord) -> Candidate | None:
        """The item as a stale-item target, None when it is not awaiting re-confirmation."""
        if rec.retired_at is not None or rec.status in NOT_ASKED_AS_STALE:
            return None
        reasons = self.knowledge.stale_reasons(rec.id)
        if not reasons:
            return None
        subject, values = _item_subject(rec)
        return Candidate(
            id=rec.id,
            kind=STALE_ITEM,
            opened_at=self._stale_since(rec),
            subject=subject,
            parent=_where(rec.scope),
            detail="; ".join(reasons),
            values=values,
            **self._counts([rec.id]),
        )

    def _stale_since(self, rec: ItemRecord) -> int:
        # The oldest flag no person or outcome has answered yet; else when it was last confirmed
        # (its re-confirmation period ran out on the clock, which has no entry of its own).
        confirmed = max((a.seq for a in rec.live() if a.source in CONFIRMING_SOURCES), default=0)
        flagged = [
            flag.seq
            for flag in (self.knowledge.flag(f) for f in sorted(rec.flags))
            if flag is not None and flag.pending and flag.seq > confirmed
        ]
        if flagged:
            return min(flagged)
        return max((a.seq for a in rec.live()), default=rec.learned_at)

    def unknowns(self) -> list[Candidate]:
        """Every declared unknown (answered ones marked resolved), counted against the knowledge."""
        return [self._unknown(c) for c in self.questions.unknown_candidates()]

    def _unknown(self, candidate: Candidate) -> Candidate:
        record = self.questions.unknown(candidate.id)
        assert record is not None  # unknown_candidates lists declared unknowns only
        return replace(candidate, **self._counts(record.affects, own=record.decisions))

    def added(self, declaration: Draft, at: int) -> Candidate:
        """The unknown a planned declaration adds, as it will stand once applied at position `at`."""
        candidate = self.questions.declared_candidate(declaration, at)
        p = declaration.payload
        return replace(candidate, **self._counts(p["affects"], own=p["decisions"]))

    def candidates(self) -> list[Candidate]:
        """Open disputes, stale items and every declared unknown (answered ones resolved), by id."""
        found = [self.dispute(e) for e in self.knowledge.open_disputes()]
        found += [c for c in (self.stale_item(r) for r in self.knowledge.stale_candidates()) if c is not None]
        found += self.unknowns()
        return sorted(found, key=lambda c: c.id)

    # --- a named preference ---------------------------------------------------------------------

    def preference(self, knowledge: KnowledgeState, preferred: str,
                   pool: Iterable[str]) -> tuple[list[Candidate], dict[str, str]]:
        """What the store (its whole knowledge state) knows of a preferred id outside the open `pool`.

        Returns a resolved candidate for a target that no longer needs an answer (a closed dispute,
        a target asked about before, an item once flagged and now re-confirmed), so the preference
        is rejected as resolved; or, for an existing node that bears no question, `others` naming
        what it is, so it is rejected as not question-bearing. Neither for an id nothing carries.
        """
        if preferred in set(pool):
            return [], {}
        closed = self._closed(knowledge, preferred)
        if closed is not None:
            return [closed], {}
        for what, known in (
            ("item", knowledge.items),
            ("snapshot", knowledge.snapshots),
            ("flag", knowledge.flags),
        ):
            if preferred in known:
                return [], {preferred: what}
        if self.questions.question(preferred) is not None:
            return [], {preferred: "question"}
        return [], {}

    def _closed(self, knowledge: KnowledgeState, preferred: str) -> Candidate | None:
        event = knowledge.dispute_event(preferred) if preferred.startswith("d-") else None
        if event is not None:
            return replace(self.dispute(event), resolved=True)
        asked = self.questions.questions_about(preferred)
        if asked:
            last = asked[-1]
            return Candidate(
                id=preferred, kind=last.target_kind, opened_at=asked[0].asked_at, subject=last.subject,
                parent=last.parent, resolved=True,
            )
        rec = knowledge.items.get(preferred)
        if rec is not None and rec.flags:
            subject, values = _item_subject(rec)
            return Candidate(
                id=preferred, kind=STALE_ITEM, opened_at=rec.learned_at, subject=subject,
                parent=_where(rec.scope), values=values, resolved=True,
            )
        return None
