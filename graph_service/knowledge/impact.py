"""What would change if some items were retracted: every status and support change, written nowhere.

`dependents` answers "what rests on this" (derived from it, transitively); this answers "what
would change if it went", which can reach items that rest on nothing retracted (a competitor it
refuted stands again, and what that competitor refutes in turn falls). It is the same evaluation a
retraction runs (incremental.py), over an overlay in which the items' assertions are taken back:
the state itself is not touched.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from graph_service.knowledge.incremental import propagate, reference_evaluation
from graph_service.knowledge.records import Asserted, ItemRecord
from graph_service.knowledge.rules import DisputeEvent, ItemVerdict
from graph_service.knowledge.units import unit_of

if TYPE_CHECKING:
    from graph_service.knowledge.state import KnowledgeState


@dataclass(frozen=True, slots=True)
class Impact:
    """Verdicts before and after, for every item whose status or support would change, and the
    dispute events before and after, for every key whose events would change."""

    items: dict[str, tuple[ItemVerdict, ItemVerdict]]
    disputes: dict[str, tuple[tuple[DisputeEvent, ...], tuple[DisputeEvent, ...]]]

    def status_changes(self) -> dict[str, tuple[str, str]]:
        """{id: (status before, status after)} for the items whose status would change, by id."""
        return {
            i: (before.status, after.status)
            for i, (before, after) in sorted(self.items.items())
            if before.status != after.status
        }


class _Overlay:
    """The state as it would read with some records replaced; everything else is the state's own."""

    def __init__(self, state: KnowledgeState, records: dict[str, ItemRecord]) -> None:
        self._state = state
        self.items = ChainMap(records, state.items)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)


def impact(state: KnowledgeState, ids: Iterable[str]) -> Impact:
    """What retracting `ids` (every live assertion of each) would change, the state unchanged.

    Equal to the difference a retraction of those items (in one entry or one after another) makes
    to every verdict and every key's dispute events. Ids never written are ignored.
    """
    taken_back = {
        i: replace(rec, assertions=tuple(Asserted(a.assertion, state.position + 1) for a in rec.assertions))
        for i in dict.fromkeys(ids)
        if (rec := state.items.get(i)) is not None and rec.live()
    }
    if not taken_back:
        return Impact({}, {})
    view = cast("KnowledgeState", _Overlay(state, taken_back))
    # A state keeping no order (incremental=False) can only be asked the whole-component way.
    seeds = {unit_of(rec) for rec in taken_back.values()}
    outcome = propagate(view, state.order, seeds, taken_back) if state.incremental else None
    if outcome is None:
        verdicts, disputes, _ = reference_evaluation(view, taken_back)
    else:
        verdicts, disputes = outcome.verdicts, outcome.disputes
    items = {
        i: (state.items[i].verdict, after)
        for i, after in sorted(verdicts.items())
        if (state.items[i].verdict.status, state.items[i].verdict.support) != (after.status, after.support)
    }
    events = {
        key: (state.dispute_events.get(key, ()), after)
        for key, after in sorted(disputes.items())
        if state.dispute_events.get(key, ()) != after
    }
    return Impact(items, events)
