"""What a replay's projections add up to, node by node, and the first place the graph says otherwise.

Pure. verify feeds it every entry's projection as the replay applies it; the graph's nodes are then
read back by id, a batch at a time (`projected_nodes_by_id`), and compared property by property.
Why: the statuses and confidences verify compared before are not all a node holds, and a backend can
get the rest wrong (FalkorDB 4.16's multi-removal SET did: see projection._removals_apart).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from graph_service.projection import NODE_LABELS, Projection

BATCH = 500


def ids_param(label: str) -> str:
    """The `projected_nodes_by_id` parameter that carries the ids of one label."""
    return f"ids_{label}"


def _same(stored: Any, projected: Any) -> bool:
    if isinstance(stored, float) and isinstance(projected, float):
        # A double may come back from the backend's text form a last digit away from the one written.
        return math.isclose(stored, projected, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(stored, list) and isinstance(projected, list):
        return len(stored) == len(projected) and all(_same(s, p) for s, p in zip(stored, projected, strict=True))
    return bool(stored == projected)


class ProjectedNodes:
    """The properties each upserted node has after the projections fed so far: later over earlier, a None
    removing one (what the projection statements mean, whichever backend runs them)."""

    def __init__(self) -> None:
        self._props: dict[tuple[str, str], dict[str, Any]] = {}

    def feed(self, projection: Projection) -> None:
        for node in projection.nodes:
            self._props.setdefault((node.label, node.id), {}).update(node.props)

    def __len__(self) -> int:
        return len(self._props)

    def batches(self, size: int = BATCH) -> Iterator[dict[str, list[str]]]:
        """`projected_nodes_by_id` parameters naming every node fed, `size` at a time (every label present)."""
        keys = sorted(self._props)
        for start in range(0, len(keys), size):
            params: dict[str, list[str]] = {ids_param(label): [] for label in NODE_LABELS}
            for label, node_id in keys[start:start + size]:
                params[ids_param(label)].append(node_id)
            yield params

    def first_difference(self, asked: Mapping[str, list[str]], rows: Iterable[Mapping[str, Any]]) -> str | None:
        """The first node of those `asked` whose stored properties (`rows`: label, id, props) are not the
        projected ones, in words naming the node and the property; None when all are."""
        stored = {(row["label"], row["id"]): dict(row["props"]) for row in rows}
        for label in NODE_LABELS:
            for node_id in asked.get(ids_param(label), ()):
                # The statement's MERGE sets `id`; some upserts name it among their properties too.
                want = {"id": node_id, **{k: v for k, v in self._props[(label, node_id)].items() if v is not None}}
                have = stored.get((label, node_id))
                if have is None:
                    return f"node {label} {node_id} is missing from the graph"
                for name in sorted(set(want) | set(have)):
                    if name not in have:
                        return f"node {label} {node_id}: property {name!r} is missing from the graph " \
                               f"(a replay gives {want[name]!r})"
                    if name not in want:
                        return f"node {label} {node_id}: property {name!r} is {have[name]!r} in the graph, " \
                               "which a replay removes or never sets"
                    if not _same(have[name], want[name]):
                        return f"node {label} {node_id}: property {name!r} is {have[name]!r} in the graph, " \
                               f"{want[name]!r} in a replay"
        return None
