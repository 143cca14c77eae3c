"""What one journal entry did to the belief layer, accumulated while it is applied."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_service.beliefs.confidence import EvidenceValue
from graph_service.beliefs.records import Pattern
from graph_service.journal.chain import Entry
from graph_service.projection import EdgeMerge


@dataclass(slots=True)
class Change:
    """Everything touched by one entry: beliefs to version, rows to project, events to report."""

    entry: Entry
    touched: dict[str, list[str]] = field(default_factory=dict)  # belief → reasons, in first-touch order
    before: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    new_rows: list[str] = field(default_factory=list)
    changed_rows: dict[str, None] = field(default_factory=dict)
    retracted_rows: list[str] = field(default_factory=list)
    counted: dict[tuple[str, EvidenceValue], None] = field(default_factory=dict)  # (belief, value): its count moved
    created: list[str] = field(default_factory=list)
    edges: list[EdgeMerge] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    propagations: dict[str, int] = field(default_factory=dict)
    # What a write that holds no copy of the layer reads and the graph keeps for it (beliefs.partial_write):
    patterns: list[Pattern] = field(default_factory=list)  # do-not-infer patterns made
    inaccurate: list[tuple[str, str]] = field(default_factory=list)  # roots marked inaccurate
    entities: dict[str, str] = field(default_factory=dict)  # subjects moved to another entity: their entity now
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def seq(self) -> int:
        return self.entry.seq

    def touch(self, belief: str, reason: str, before: dict[str, Any] | None) -> None:
        reasons = self.touched.setdefault(belief, [])
        if belief not in self.before:
            self.before[belief] = before
        if reason not in reasons:
            reasons.append(reason)

    def event(self, name: str, **fields: Any) -> None:
        self.events.append({"event": name, **fields})
