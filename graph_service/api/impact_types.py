"""`impact`: what would change if items were retracted or observations marked inaccurate, written nowhere."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from graph_service.api.belief_mutations import BeliefChange, BeliefSnapshot
from graph_service.api.context import caught_up
from graph_service.api.errors import user_errors
from graph_service.api.knowledge_types import StatusChange
from graph_service.errors import NotFound
from graph_service.impact import store_impact


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
    def impact(self, info: strawberry.Info[Any, Any],
               items: Annotated[list[str] | None, strawberry.argument(
                   description="Ids of items to suppose retracted.")] = None,
               observations: Annotated[list[str] | None, strawberry.argument(
                   description="Ids of observations to suppose marked inaccurate.")] = None) -> Impact:
        state = caught_up(info).state
        for i, item in enumerate(items or ()):
            if state.knowledge.status(item) is None:
                raise NotFound(f"items[{i}]: no item {item!r}", field="items")
        for i, observation in enumerate(observations or ()):
            if not state.has_observation(observation):
                raise NotFound(f"observations[{i}]: no observation {observation!r}", field="observations")
        found = store_impact(state, items or (), observations or ())
        after = {b: _snapshot(a) for b, (_, a) in found.beliefs.items()}
        return Impact(
            items=[StatusChange.of(i, b, a) for i, (b, a) in found.items.items()],
            supports=[SupportChange(id=i, before=list(b), after=list(a)) for i, (b, a) in found.supports.items()],
            beliefs=[BeliefChange(belief=b, before=_snapshot(before), after=after[b])  # type: ignore[arg-type]
                     for b, (before, _) in found.beliefs.items()],
        )
