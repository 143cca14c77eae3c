"""The open targets' reads of the knowledge store (questions.targets.KnowledgeTargets), from the graph at the
position a KnowledgeRead is at: what `openQuestions` ranks without the in-memory state. What they read is what
is open and what it stands on, never every item: the open disputes and the items pending flags cover or the
clock made stale, by indexes (Dispute.open, Flag.pending, Item.reconfirm_due), their records through the
KnowledgeRead, the items resting on them walked level by level (for every target at once), and the snapshots
that read them by their READ edges. Equal to questions.targets.StateTargets over the whole state
(tests/integration/test_open_targets.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.knowledge.as_of import dispute_of_props
from graph_service.knowledge.records import FlagRecord, ItemRecord
from graph_service.knowledge.rules import DisputeEvent
from graph_service.questions.resting import DerivedFrom
from graph_service.storage.port import GraphPort


class GraphTargets:
    """questions.targets.KnowledgeTargets read from `graph`, the records as of `read.upto`. What it reads is
    kept for the rest of the ranking: the open targets' items, the edges below them (fetched a level at a time
    for every target at once, so each target's dependents are then walked in memory) and the snapshots that
    read them, so a ranking costs the depth below its targets in statements, not that per target."""

    def __init__(self, graph: GraphPort, read: KnowledgeRead) -> None:
        self.graph, self.read = graph, read
        self._derived_from: dict[str, set[str]] = {}  # item -> the items derived directly from it
        self._below_read: set[str] = set()  # items every edge below which is in _derived_from
        self._read_by: dict[str, set[str]] = {}  # item -> the snapshots that read it
        self._written: dict[str, bool] = {}  # item -> whether it was written

    def open_disputes(self) -> list[DisputeEvent]:
        events = [e for r in self.graph.run("open_disputes") if (e := dispute_of_props(r["dispute"])) is not None]
        self._prefetch([i for e in events for i in e.items])
        return events

    def stale_candidates(self) -> list[ItemRecord]:
        flagged = {r["id"] for r in self.graph.run("pending_flag_items")}
        due = {r["id"] for r in self.graph.run("items_reconfirm_due", {"clock": self.read.state.clock})}
        found = self.read.items(sorted(flagged | due))
        self._written.update(dict.fromkeys(found, True))
        self._prefetch(list(found))
        return [found[i] for i in sorted(found)]

    def _prefetch(self, ids: list[str]) -> None:
        """Read at once, for these items, what each target standing on them reads: whether each was written,
        the snapshots reading them and every edge below them."""
        present = self.present(ids)
        self.snapshots_reading(present)
        self.derived_below(present)

    def present(self, ids: Iterable[str]) -> list[str]:
        # Whether an item was written is its node's (with a status: a written item's); its record, with the
        # history it is folded from, is read only for a stale-item target, which shows it.
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._written]
        if missing:
            found = {r["id"] for r in self.graph.run("item_statuses", {"items": missing}) if r["status"] is not None}
            self._written.update({i: i in found for i in missing})
        return [i for i in wanted if self._written[i]]

    def derived_below(self, ids: list[str]) -> DerivedFrom:
        """The edges below `ids` (questions.targets.KnowledgeTargets.derived_below), walked level by level, the
        missing ones of each level read in one statement (item_dependents_step). What was read is kept: a walk
        from items whose every edge below was read already reads and walks nothing."""
        seen = {i for i in ids if i not in self._below_read}
        frontier = sorted(seen)
        while frontier:
            missing = [i for i in frontier if i not in self._derived_from]
            if missing:
                for item_id in missing:
                    self._derived_from[item_id] = set()
                for row in self.graph.run("item_dependents_step", {"asked": {"frontier": missing}}):
                    self._derived_from[row["via"]].add(row["id"])
            frontier = sorted({d for i in frontier for d in self._derived_from[i]} - seen - self._below_read)
            seen.update(frontier)
        self._below_read |= seen
        return self._derived_from

    def snapshots_reading(self, ids: list[str]) -> set[str]:
        missing = [i for i in dict.fromkeys(ids) if i not in self._read_by]
        if missing:
            for item_id in missing:
                self._read_by[item_id] = set()
            for row in self.graph.run("snapshots_reading", {"ids": missing}):
                self._read_by[row["item"]].add(row["id"])
        return set().union(*(self._read_by[i] for i in ids))

    def stale_reasons(self, item_id: str) -> list[str]:
        return self.read.stale_reasons(item_id)

    def flag(self, flag_id: str) -> FlagRecord | None:
        return self.read.flag(flag_id)
