"""The store's fingerprints as of a journal position, from the graph's history (never a journal replay):
the same row functions verify uses on the nodes now (graph_service.verifying.graph_fingerprint), over
every Item's and Belief's properties as their histories say they were then.

Whole-store by nature, like verify: it reads every Item and Belief node and their writes up to the
position, O(items + beliefs + their writes by then). Each node comes as one row holding its own history,
folded on its own (the knowledge fingerprint is a sum in any order; the belief one sorts (id, status,
confidence) triples), so nothing needs more than one node's history at a time beside those triples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from graph_service.beliefs.as_of import props_then
from graph_service.beliefs.fingerprint import fingerprint_of as beliefs_fingerprint_of
from graph_service.knowledge.fingerprint import fingerprint_of as items_fingerprint_of
from graph_service.state import combined_fingerprint
from graph_service.storage.port import GraphPort
from graph_service.types import Row


def states_then(rows: Iterable[Row], position: int) -> Iterator[dict[str, Any]]:
    """Each `{id, writes}` row's node as of `position` (its writes are those up to it); a node nothing
    had written by then is left out, HistoryMissing for one whose history does not reach."""
    for row in rows:
        props = props_then(row["writes"], position)
        if props is not None:
            yield props


def fingerprints_as_of(graph: GraphPort, position: int) -> dict[str, Any]:
    """{store, knowledge, beliefs, position} as `StoreState.fingerprints()` of the journal replayed up to
    `position` gives them, from the graph's history (the caller checks the position is in the journal)."""
    knowledge = items_fingerprint_of(states_then(graph.run("every_item_history_upto", {"upto": position}),
                                                 position))
    beliefs = beliefs_fingerprint_of(states_then(graph.run("every_belief_history_upto", {"upto": position}),
                                                 position))
    return {"store": combined_fingerprint(knowledge, beliefs), "knowledge": knowledge, "beliefs": beliefs,
            "position": position}
