"""The running service: one graph, its journal and the pure domains fed by it."""

from __future__ import annotations

from graph_service.config import Settings
from graph_service.journal.notes import NoteDomain
from graph_service.journal.store import Journal
from graph_service.storage.open import open_graph
from graph_service.storage.port import GraphPort


class Service:
    """Owns the graph connection and the journal; `close()` releases both."""

    def __init__(self, graph: GraphPort) -> None:
        self.graph = graph
        self.journal = Journal(graph, [NoteDomain()])

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

    def close(self) -> None:
        self.graph.close()
