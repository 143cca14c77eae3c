"""A minimal store stand-in for the belief tests: plan → seal one journal entry → apply."""

from __future__ import annotations

from typing import Any

from graph_service.beliefs import BeliefState
from graph_service.domain import Applied
from graph_service.journal.chain import GENESIS, Entry, seal

ITEM_RETRACT = "item.retract"  # stands for another domain's op that makes items gone


class Harness:
    def __init__(self) -> None:
        self.state = BeliefState()
        self.log: list[Entry] = []
        self.applied: list[Applied] = []

    def entry(self, op: str, payload: dict[str, Any], by: str) -> Entry:
        prev = self.log[-1].hash if self.log else GENESIS
        seq = len(self.log) + 1
        entry = seal(prev, seq, op, by, 1_000 * seq, payload)
        self.log.append(entry)
        return entry

    def do(self, op: str, payload: dict[str, Any], by: str = "alice") -> Applied:
        draft = self.state.plan(op, payload)
        applied = self.state.apply(self.entry(draft.op, draft.payload, by))
        self.applied.append(applied)
        return applied

    def create(self, proposition: str, *rows: dict[str, Any], **fields: Any) -> str:
        applied = self.do("belief.create", {"proposition": proposition, "evidence": list(rows), **fields})
        return applied.result["belief"]

    def versions(self, belief_id: str) -> list[dict[str, Any]]:
        """The BeliefVersion nodes the applied entries projected for this belief, in order (the state
        keeps only the belief as it stands; its history is the graph's)."""
        return [node.props for applied in self.applied for node in applied.projection.nodes
                if node.label == "BeliefVersion" and node.props["belief"] == belief_id]

    def items_retracted(self, *ids: str) -> Applied:
        entry = self.entry(ITEM_RETRACT, {"ids": list(ids)}, "system")
        applied = self.state.roots_gone("item", ids, entry)
        self.applied.append(applied)
        return applied


def replay(entries: list[Entry]) -> BeliefState:
    """What a composing store's replay does: belief entries applied, item retractions cascaded."""
    state = BeliefState()
    for entry in entries:
        if state.handles(entry.op):
            state.apply(entry)
        elif entry.op == ITEM_RETRACT:
            state.roots_gone("item", entry.payload["ids"], entry)
    return state


def row(weight: float, family: str, **extra: Any) -> dict[str, Any]:
    return {"weight": weight, "credibility": 1.0, "family": family, **extra}
