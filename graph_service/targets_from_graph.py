"""The open targets' reads of the knowledge store (questions.targets.KnowledgeTargets), from the graph at the
position a KnowledgeRead is at: what `openQuestions` ranks without the in-memory state. What they read is what
is open and what it stands on, never every item: the open disputes and the items pending flags cover or the
clock made stale, by indexes (Dispute.open, Flag.pending, Item.reconfirm_due), their records through the
KnowledgeRead, the items resting on them walked level by level, and the snapshots that read them by their READ
edges. Equal to questions.targets.StateTargets over the whole state (tests/integration/test_open_targets.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_service.knowledge.as_of import dispute_of_props
from graph_service.knowledge.records import FlagRecord, ItemRecord
from graph_service.knowledge.rules import DisputeEvent
from graph_service.knowledge_region import KnowledgeRead
from graph_service.storage.port import GraphPort
from graph_service.storage.walks import ITEM_DEPENDENTS, walk


class GraphTargets:
    """questions.targets.KnowledgeTargets read from `graph`, the records as of `read.upto`."""

    def __init__(self, graph: GraphPort, read: KnowledgeRead) -> None:
        self.graph, self.read = graph, read

    def open_disputes(self) -> list[DisputeEvent]:
        events = (dispute_of_props(r["dispute"]) for r in self.graph.run("open_disputes"))
        return [e for e in events if e is not None]

    def stale_candidates(self) -> list[ItemRecord]:
        flagged = {r["id"] for r in self.graph.run("pending_flag_items")}
        due = {r["id"] for r in self.graph.run("items_reconfirm_due", {"clock": self.read.state.clock})}
        found = self.read.items(sorted(flagged | due))
        return [found[i] for i in sorted(found)]

    def present(self, ids: Iterable[str]) -> list[str]:
        wanted = list(dict.fromkeys(ids))
        found = self.read.items(wanted)
        return [i for i in wanted if i in found]

    def dependents(self, ids: list[str]) -> set[str]:
        return {reached.id for reached in walk(self.graph, ids, ITEM_DEPENDENTS)} if ids else set()

    def snapshots_reading(self, ids: list[str]) -> set[str]:
        return {r["id"] for r in self.graph.run("snapshots_reading", {"ids": ids})} if ids else set()

    def stale_reasons(self, item_id: str) -> list[str]:
        return self.read.stale_reasons(item_id)

    def flag(self, flag_id: str) -> FlagRecord | None:
        return self.read.flag(flag_id)
