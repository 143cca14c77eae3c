"""The items' statuses as the graph holds them (StoreState's `statuses_taken`): what the other domains ask of an
item (is it written, is it present), read by key from the Item nodes, with what the entries the graph does not hold
yet changed (from_graph.keyed_parts says why that is exact), where the store state kept every item's status.

Only for a state that takes the knowledge entries and the belief layer from the graph: an entry the graph holds then
needs no status (its effects on the layer are in the graph), so a start reads none."""

from __future__ import annotations

from typing import Any, ClassVar

from graph_service.from_graph.keyed_parts import KeyedParts, Needs


class ItemStatuses(KeyedParts):
    """The items' statuses (KeyedParts: part "item"), read by `cypher/item_statuses.cypher`."""

    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {"items": ("item",)}

    def _fetch(self, wanted: Needs) -> dict[tuple[str, str], Any]:
        rows = self.graph.run("item_statuses", {"items": wanted["items"]})
        return {("item", row["id"]): row["status"] for row in rows}


def items_named(payload: Any) -> list[str]:
    """The items a belief write's payload names as the roots of its rows (what applying it asks the status of)."""
    if not isinstance(payload, dict):
        return []
    rows = payload.get("rows")
    return [root for one in [payload, *(rows if isinstance(rows, list) else ())]
            if isinstance(one, dict) and one.get("root_kind") == "item" and isinstance(one.get("root_ids"), list)
            for root in one["root_ids"] if isinstance(root, str)]
