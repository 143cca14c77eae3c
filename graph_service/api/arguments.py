"""Arguments many fields share, each with its description once (graphql-schema-linter: every argument
described)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from graph_service.errors import UserError

MAX_WALK_DEPTH = 100

First = Annotated[int | None, strawberry.argument(description="At most this many nodes, 1 to 500 (default 50).")]
After = Annotated[str | None, strawberry.argument(description="Start after this cursor (an edge's `cursor` or "
                                                              "`pageInfo.endCursor`); null: from the start.")]
Why = Annotated[str | None, strawberry.argument(description="Why, in words, recorded in the journal entry.")]
Reason = Annotated[str | None, strawberry.argument(description="Why, in words, recorded in the journal entry.")]
ItemId = Annotated[str, strawberry.argument(description="The item's id (k-…).")]
BeliefId = Annotated[str, strawberry.argument(description="The belief's id (b<seq>.<n>).")]
MaxDepth = Annotated[int | None, strawberry.argument(description=f"Go at most this many steps (1 to {MAX_WALK_DEPTH}); "
                                                                 "null: to the end.")]


def checked_depth(max_depth: int | None) -> None:
    """UserError (field maxDepth) when `max_depth` is outside 1 to MAX_WALK_DEPTH (None: no limit, allowed)."""
    if max_depth is not None and not 1 <= max_depth <= MAX_WALK_DEPTH:
        raise UserError(f"maxDepth must be between 1 and {MAX_WALK_DEPTH}, got {max_depth}", field="maxDepth")
