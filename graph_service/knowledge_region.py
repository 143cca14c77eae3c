"""The region of the knowledge store one entry's rules read, read from the graph as a state to apply it on.

The step a write that holds no copy of the store takes before planning and applying (docs/stateless-path.md):
start where the entry names (graph_service.knowledge.region), walk the graph to the whole components of
those items level by level, and rebuild their records with the as-of reader (knowledge.as_of.knowledge_at).
Its cost is the region's: the component's items and edges, the flags covering them, the disputes about them;
and, until the store clock is kept on the head, the store's ticks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graph_service.api.knowledge_as_of import CLOCK, DISPUTES, FLAGS, ITEMS, knowledge_from_history
from graph_service.history import HistoryMissing
from graph_service.knowledge.region import entry_region_start
from graph_service.knowledge.state import KnowledgeState
from graph_service.storage.port import GraphPort
from graph_service.storage.walks import walk

# A knowledge component's edges, both ways: premises, shared keys, supersedes (KnowledgeState.neighbours).
COMPONENT_STEPS = (
    ("item_premises_step_upto", "DERIVED_FROM"),
    ("item_dependents_step_upto", "DERIVED_FROM"),
    ("item_same_key_step_upto", "SAME_KEY"),
    ("item_supersedes_step_upto", "SUPERSEDES"),
    ("item_superseded_by_step_upto", "SUPERSEDES"),
)
REGION_PARTS = frozenset({ITEMS, FLAGS, CLOCK, DISPUTES})


def region_members(graph: GraphPort, knowledge_ops: Iterable[tuple[str, Mapping[str, Any]]], upto: int) -> set[str]:
    """The ids of the whole components, as of position `upto`, that these knowledge operations touch (ids
    they name that no item had by then are kept: an entry may add them). RegionUnknown (from
    knowledge.region) for an operation whose rules read beyond what it names."""
    start = entry_region_start(knowledge_ops)
    seeds = set(start.items)
    if start.keys:
        seeds |= {r["id"] for r in graph.run("items_on_keys_upto", {"keys": sorted(start.keys), "upto": upto})}
    if start.flags:
        for row in graph.run("flag_covered_items_upto", {"flags": sorted(start.flags), "upto": upto}):
            if row["since_seq"] is None:
                raise HistoryMissing(upto)
            seeds.add(row["item"])
    return seeds | {reached.id for reached in walk(graph, seeds, COMPONENT_STEPS, upto=upto)}


def knowledge_region(graph: GraphPort, knowledge_ops: Iterable[tuple[str, Mapping[str, Any]]],
                     upto: int) -> KnowledgeState:
    """A knowledge state holding the region these operations' rules read, as the journal up to `upto` left
    it: applied the entry at `upto + 1` that carries them, it returns what the whole store's state returns
    (the same projection and result; its fingerprint and position are the region's, not the store's).
    RegionUnknown for an operation with no region yet; HistoryMissing where the store was written before
    history was kept."""
    ops_list = list(knowledge_ops)
    members = region_members(graph, ops_list, upto)
    return knowledge_from_history(graph, upto, REGION_PARTS, ids=sorted(members))
