"""`impact`: what would change if items were retracted or observations marked inaccurate, written nowhere."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from graph_service.api.belief_mutations import BeliefChange, BeliefSnapshot
from graph_service.api.context import caught_up
from graph_service.api.errors import user_errors
from graph_service.api.knowledge_types import StatusChange
from graph_service.api.long_work import off_the_loop
from graph_service.errors import NotFound
from graph_service.from_graph.impact import impact_from_graph
from graph_service.impact import StoreImpact, store_impact
from graph_service.projection import KEEPS_BELIEF_TALLIES, KEEPS_NOW_READS
from graph_service.state import StoreState


@strawberry.type(description="An item whose support (the assertions it stands on) would change, its status not.")
class SupportChange:
    id: str = strawberry.field(description="The item's id.")
    before: list[str] = strawberry.field(description="The journal positions of the live assertions it rests on now.")
    after: list[str] = strawberry.field(description="Those it would rest on after.")


@strawberry.type(description="What a retraction (or a mark of inaccuracy) would change, computed the way the "
                             "write computes it; nothing is written. Equal to what the write then does.")
class Impact:
    items: list[StatusChange] = strawberry.field(description="Every item whose status would change.")
    supports: list[SupportChange] = strawberry.field(description="Items whose support alone would change.")
    beliefs: list[BeliefChange] = strawberry.field(
        description="Every belief whose status or confidence would change (after: its version if written).")


def _snapshot(raw: dict[str, Any] | None) -> BeliefSnapshot | None:
    return None if raw is None else BeliefSnapshot.of(raw)


@strawberry.type
class ImpactQuery:
    @strawberry.field(description="What falls if these go: every item and belief whose status (or support, or "
                                  "confidence) would change if these items were retracted and these observations "
                                  "marked inaccurate. Unlike `dependents` (what is derived from an item), this "
                                  "reaches what rests on nothing retracted: a competitor that stands again, and "
                                  "what it refutes in turn. Unknown ids are NOT_FOUND.")
    @user_errors
    async def impact(self, info: strawberry.Info[Any, Any],
                     items: Annotated[list[str] | None, strawberry.argument(
                         description="Ids of items to suppose retracted.")] = None,
                     observations: Annotated[list[str] | None, strawberry.argument(
                         description="Ids of observations to suppose marked inaccurate.")] = None) -> Impact:
        service = caught_up(info)
        if service.journal.keeps_at_least(KEEPS_NOW_READS):
            # From the graph, reading what the change reaches (graph_service.from_graph.impact), in a worker
            # thread: a cascade's reads are round trips the loop need not wait on.
            upto = min(service.journal.seq, service.journal.projected)
            tallies_kept = service.journal.keeps_at_least(KEEPS_BELIEF_TALLIES)
            found = await off_the_loop(lambda: impact_from_graph(service.graph, upto, items or (), observations or (),
                                                                 tallies_kept), "past")
        else:  # a store written before the graph kept what that reads: its state's, on the loop
            found = _impact_of_state(service.state, items or (), observations or ())
        after = {b: _snapshot(a) for b, (_, a) in found.beliefs.items()}
        return Impact(
            items=[StatusChange.of(i, b, a) for i, (b, a) in found.items.items()],
            supports=[SupportChange(id=i, before=list(b), after=list(a)) for i, (b, a) in found.supports.items()],
            beliefs=[BeliefChange(belief=b, before=_snapshot(before), after=after[b])  # type: ignore[arg-type]
                     for b, (before, _) in found.beliefs.items()],
        )


def _impact_of_state(state: StoreState, items: list[str], observations: list[str]) -> StoreImpact:
    """impact on the whole in-memory state, NotFound naming the first id it never wrote."""
    for i, item in enumerate(items):
        if state.knowledge.status(item) is None:
            raise NotFound(f"items[{i}]: no item {item!r}", field="items")
    for i, observation in enumerate(observations):
        if not state.has_observation(observation):
            raise NotFound(f"observations[{i}]: no observation {observation!r}", field="observations")
    return store_impact(state, items, observations)
