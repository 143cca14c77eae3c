"""The running service: one graph, its journal and the store state the journal feeds."""

from __future__ import annotations

from dataclasses import dataclass

from graph_service.beliefs.fingerprint import fingerprint_of as beliefs_fingerprint_of
from graph_service.config import Settings
from graph_service.journal.store import Journal, VerifyReport
from graph_service.knowledge.fingerprint import fingerprint_of as items_fingerprint_of
from graph_service.state import StoreState, combined_fingerprint, replay
from graph_service.storage.open import open_graph
from graph_service.storage.port import GraphPort


@dataclass(frozen=True)
class FullReport:
    """The chain check, plus whether the graph holds what a pure replay of the journal gives."""

    chain: VerifyReport
    projection_ok: bool
    replay_fingerprint: str | None
    graph_fingerprint: str | None

    @property
    def ok(self) -> bool:
        return self.chain.ok and self.projection_ok


class Service:
    """Owns the graph connection, the journal and the in-memory state; `close()` releases them."""

    def __init__(self, graph: GraphPort) -> None:
        self.graph = graph
        self.state = StoreState()
        self.journal = Journal(graph, [self.state])

    @classmethod
    def open(cls, settings: Settings) -> Service:
        """Connect to the configured backend and replay its journal."""
        graph = open_graph(settings)
        try:
            service = cls(graph)
            service.journal.open()
        except BaseException:
            graph.close()
            raise
        return service

    def graph_fingerprint(self) -> str:
        """The fingerprint of what the graph's nodes say (statuses and confidences as projected)."""
        items = items_fingerprint_of(self.graph.run("item_fingerprint_rows"))
        beliefs = beliefs_fingerprint_of(self.graph.run("belief_fingerprint_rows"))
        return combined_fingerprint(items, beliefs)

    def verify(self) -> FullReport:
        """The chain is whole, and the projection equals a pure replay of the stored journal."""
        self.journal.catch_up()
        entries = list(self.journal.entries_after(0))  # read once: checked, then replayed
        chain = self.journal.verify(entries)
        if not chain.ok:
            return FullReport(chain, False, None, None)
        expected = replay(entries).fingerprint()
        actual = self.graph_fingerprint()
        return FullReport(chain, expected == actual, expected, actual)

    def close(self) -> None:
        self.graph.close()
