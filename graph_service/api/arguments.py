"""Arguments many fields share, each with its description once (graphql-schema-linter: every argument
described)."""

from __future__ import annotations

from typing import Annotated

import strawberry

First = Annotated[int | None, strawberry.argument(description="At most this many nodes, 1 to 500 (default 50).")]
After = Annotated[str | None, strawberry.argument(description="Start after this cursor (an edge's `cursor` or "
                                                              "`pageInfo.endCursor`); null: from the start.")]
Why = Annotated[str | None, strawberry.argument(description="Why, in words, recorded in the journal entry.")]
Reason = Annotated[str | None, strawberry.argument(description="Why, in words, recorded in the journal entry.")]
ItemId = Annotated[str, strawberry.argument(description="The item's id (k-…).")]
BeliefId = Annotated[str, strawberry.argument(description="The belief's id (b<seq>.<n>).")]
