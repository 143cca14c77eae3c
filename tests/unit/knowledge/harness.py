"""An in-memory journal for the knowledge core's tests: plan → seal → apply, as the store does."""

from __future__ import annotations

from typing import Any

from graph_service.domain import Applied, Draft
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.knowledge import planning
from graph_service.knowledge.state import KnowledgeState


class Journal:
    """Entries appended in order and applied to one incremental state."""

    def __init__(self, state: KnowledgeState | None = None) -> None:
        self.state = state or KnowledgeState()
        self.entries: list[Entry] = []
        self.last: Applied | None = None

    def write(self, draft: Draft, by: str = "tester") -> Any:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(
            prev, len(self.entries) + 1, draft.op, by, 1_700_000_000_000 + len(self.entries), draft.payload
        )
        self.entries.append(entry)
        self.last = self.state.apply(entry)
        return self.last.result

    def add(self, kind: str = "fact", body: dict[str, Any] | None = None, **fields: Any) -> Any:
        raw = {"kind": kind, "body": body or {}, "source": "person", **fields}
        result = self.write(planning.plan_add(self.state, raw, by="tester"))
        return result

    def fact(self, s: str, r: str, o: Any, source: str = "person", **fields: Any) -> str:
        result = self.add("fact", {"s": s, "r": r, "o": o}, source=source, **fields)
        assert result["id"] is not None, result
        return result["id"]

    def status(self, item_id: str) -> str | None:
        return self.state.status(item_id)

    def retract(self, item_id: str, why: str = "wrong") -> Any:
        return self.write(planning.plan_retract(self.state, item_id, why))

    def tick(self, k: int) -> Any:
        return self.write(planning.plan_tick(self.state, k))
