"""The statuses each knowledge entry gave the items it wrote, read from the graph (StoreState's
`written_statuses`): what the other domains need of a knowledge entry whose own part the graph holds, so a
replay can take it as the graph holds it instead of applying it to an in-memory knowledge state."""

from __future__ import annotations

import json
from collections.abc import Mapping

from graph_service.history import HistoryMissing
from graph_service.journal.chain import Entry
from graph_service.storage.port import GraphPort

PAGE = 2_000  # positions read a statement, as the journal reads its entries (journal.store.PAGE)


class StatusesFromGraph:
    """`written_statuses` for a replay in journal order: the Item statuses of a range of `page` positions are
    read in one statement when an entry of it is first asked for (the WROTE edges' changes: every change of
    an item's status sets it on its node). Reads forward; an entry before the range read last reads its
    range again."""

    def __init__(self, graph: GraphPort, page: int = PAGE) -> None:
        self.graph, self.page = graph, page
        self._after, self._until = 0, 0
        self._by_seq: dict[int, dict[str, str]] = {}
        self.statements = 0

    def __call__(self, entry: Entry) -> Mapping[str, str]:
        if not self._after < entry.seq <= self._until:
            self._read(entry.seq - 1, entry.seq - 1 + self.page)
        return self._by_seq.get(entry.seq, {})

    def _read(self, after: int, until: int) -> None:
        rows = self.graph.run("item_statuses_written_between", {"after": after, "until": until})
        self.statements += 1
        by_seq: dict[int, dict[str, str]] = {}
        for row in rows:
            if row["changes"] is None:  # written before history was kept
                raise HistoryMissing(row["seq"])
            status = json.loads(row["changes"]).get("status")
            if status is not None:
                by_seq.setdefault(row["seq"], {})[row["id"]] = status
        self._after, self._until, self._by_seq = after, until, by_seq
