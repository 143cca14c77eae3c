"""`impact` read from the graph: what retracting items and marking observations inaccurate would change, as
of a position, without the in-memory state. The retraction's own evaluation runs on a knowledge scratch
state that reads the items it touches (knowledge.partial, parts from knowledge_region.PartsFromGraph), and
the belief cascade on a belief scratch state that reads the rows and beliefs it touches (beliefs.partial,
parts from from_graph.belief_parts): the pure rules of graph_service.impact on what they read, so the cost is
what the change reaches, never the store. Equal to the whole state's (tests/integration/test_impact_from_graph.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_service.beliefs.partial import cascade_state
from graph_service.errors import NotFound
from graph_service.from_graph.belief_parts import BeliefPartsFromGraph
from graph_service.from_graph.knowledge_region import PartsFromGraph
from graph_service.impact import StoreImpact, impact_on
from graph_service.knowledge.partial import scratch_state
from graph_service.partial_reads import Fetched, Reader
from graph_service.state import RETRACTED
from graph_service.storage.port import GraphPort


def impact_from_graph(graph: GraphPort, upto: int, items: Iterable[str] = (),
                      observations: Iterable[str] = (), tallies_kept: bool = True) -> StoreImpact:
    """What retracting `items` and marking `observations` inaccurate would change, the store as of position
    `upto` (the head the graph holds): graph_service.impact.store_impact, read from the graph. NotFound names
    the first id never written (an item by `upto`; an observation at all). BookkeepingMissing for a store
    whose graph does not keep what it reads. `tallies_kept`: does the graph keep the beliefs' Tally nodes
    (projection.KEEPS_BELIEF_TALLIES)?"""
    wanted, marked = list(items), list(observations)
    source = PartsFromGraph(graph, upto)
    knowledge = scratch_state(Reader(source.answer, Fetched(), source.answer_many), source.clock)
    knowledge.position = upto  # what the retraction's assertions are taken back after (impact.impact)
    source.read_items(wanted)
    for i, item in enumerate(wanted):
        if knowledge.status(item) is None:
            raise NotFound(f"items[{i}]: no item {item!r}", field="items")
    for i, observation in enumerate(marked):
        if not graph.run("observation_by_id", {"id": observation}):
            raise NotFound(f"observations[{i}]: no observation {observation!r}", field="observations")
    beliefs = BeliefPartsFromGraph(graph, upto, tallies_kept)

    def present(root_kind: str, root_id: str) -> bool:
        # As StoreState.present: an item written and not retracted; other roots are their layer's to keep.
        if root_kind != "item":
            return True
        status = knowledge.status(root_id)
        return status is not None and status != RETRACTED

    return impact_on(knowledge, lambda: cascade_state(Reader(beliefs.answer, Fetched())), present, upto + 1,
                     wanted, marked)
