"""The store's fingerprints as of a journal position, from the graph's history (never a journal replay):
the same row functions verify uses on the nodes now (graph_service.jobs.verifying.graph_fingerprint), over
every Item's and Belief's properties as their histories say they were then.

Whole-store by nature, like verify: it reads every Item and Belief node and their writes up to the
position, O(items + beliefs + their writes by then). Each node comes as one row holding its own history,
folded on its own (both fingerprints are sums in any order: graph_service.digest_sum), so nothing needs
more than one node's history at a time.

The fingerprints now are not whole-store: the running sums are kept on the two Fingerprint nodes
(graph_service.state.StoreState), so `fingerprints_kept` reads two nodes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from graph_service.beliefs.as_of import props_then
from graph_service.beliefs.fingerprint import fingerprint_of as beliefs_fingerprint_of
from graph_service.digest_sum import combine
from graph_service.history import HistoryMissing
from graph_service.knowledge.fingerprint import fingerprint_of as items_fingerprint_of
from graph_service.state import BELIEFS_FINGERPRINT, KNOWLEDGE_FINGERPRINT, combined_fingerprint
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


def node_sum_upto(total: str | None, count: int | None, seq: int | None, upto: int) -> tuple[int, int] | None:
    """What a Fingerprint node's own properties (`total` in hex, `count`, `seq`: the position that last changed
    it; all None for no node) give as of position `upto`: (0, 0) for no node, the node's sum when no entry after
    `upto` changed it, None when a later one did (then it is folded from the node's history)."""
    if seq is None:
        return 0, 0
    if seq <= upto:
        return int(str(total), 16), int(count or 0)
    return None


def kept_sum_upto(graph: GraphPort, fingerprint_id: str, upto: int) -> tuple[int, int]:
    """The running (digest sum, count) the Fingerprint node `fingerprint_id` held as of position `upto`: the
    node's own, when no entry after `upto` changed it (one indexed lookup), else folded from its history.
    (0, 0) when nothing had changed it: the fingerprint of nothing."""
    rows = graph.run("fingerprint_upto", {"id": fingerprint_id, "upto": upto})
    row = rows[0] if rows else {"total": None, "count": None, "seq": None}
    own = node_sum_upto(row["total"], row["count"], row["seq"], upto)
    if own is not None:
        return own
    held: dict[str, Any] = {}
    for write in sorted(row["writes"], key=lambda w: w["seq"]):
        if write["changes"] is None:
            raise HistoryMissing(upto)
        held.update(json.loads(write["changes"]))
    return (int(held["total"], 16), int(held["count"])) if held else (0, 0)


def fingerprints_kept(graph: GraphPort, position: int) -> dict[str, Any]:
    """`fingerprints_as_of` at a position the graph holds, read from the two running sums the graph keeps
    (a store that keeps the beliefs' one: graph_service.projection.KEEPS_NOW_READS): two lookups,
    whatever the store holds."""
    knowledge = combine(*kept_sum_upto(graph, KNOWLEDGE_FINGERPRINT, position))
    beliefs = combine(*kept_sum_upto(graph, BELIEFS_FINGERPRINT, position))
    return {"store": combined_fingerprint(knowledge, beliefs), "knowledge": knowledge, "beliefs": beliefs,
            "position": position}
