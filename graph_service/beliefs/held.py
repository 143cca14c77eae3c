"""The belief layer for an entry whose projection the graph holds, in a state that holds no layer
(graph_service.from_graph.beliefs): what the entry did to the layer is in the graph already."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from graph_service.beliefs.fingerprint import RunningBeliefFingerprint
from graph_service.beliefs.state import OPS
from graph_service.domain import Applied
from graph_service.journal.chain import Entry


class HeldBeliefs:
    """The belief layer for an entry the graph holds (a start, another writer's entry): what the entry did to the
    layer is in the graph already, so applying it changes and writes nothing here."""

    projecting = False
    rows: dict[str, Any] = {}  # noqa: RUF012 (read, never written: no rows are made here)

    def __init__(self) -> None:
        self.running_fingerprint = RunningBeliefFingerprint()

    def handles(self, op: str) -> bool:
        return op in OPS

    def apply(self, entry: Entry) -> Applied:
        return Applied()

    def roots_gone(self, root_kind: str, root_ids: Iterable[str], entry: Entry) -> Applied:
        return Applied()

    def roots_back(self, root_kind: str, root_ids: Iterable[str], entry: Entry,
                   present: Callable[[str, str], bool]) -> Applied:
        return Applied()

    def evidence_from_statement(self, specs: Iterable[dict[str, Any]], entry: Entry) -> Applied:
        return Applied()


HELD_BELIEFS = HeldBeliefs()
