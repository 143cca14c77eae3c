"""The journal subscription: every entry after a position, then each new one as it is appended."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated, Any

import anyio
import anyio.to_thread
import strawberry

from graph_service.api.context import service_of
from graph_service.api.errors import as_graphql_error
from graph_service.api.journal_types import JournalEntry
from graph_service.errors import UserError
from graph_service.journal.chain import Entry
from graph_service.journal.store import Journal

POLL_SECONDS = 0.1
BATCH = 200


def entries_since(journal: Journal, position: int, limit: int = BATCH) -> list[Entry]:
    """At most `limit` stored entries after `position`, every writer's, read from the graph.

    It runs in a worker thread, so it reads only the stored journal and never touches the
    in-memory state, which resolvers read on the event loop without a lock.
    """
    if journal.stored_head()["seq"] <= position:
        return []
    return list(journal.entries_after(position, limit))


@strawberry.type
class JournalSubscription:
    @strawberry.subscription(description="Journal entries with seq > after, in order, then each new one as it "
                                         "is written. Resume by passing the last seq received.")
    async def journal_entries(self, info: strawberry.Info[Any, Any],
                              after: Annotated[int, strawberry.argument(
                                  description="Send the entries after this journal position (0: from the first).")
                              ] = 0) -> AsyncGenerator[JournalEntry, None]:
        if after < 0:
            raise as_graphql_error(UserError(f"after must be 0 or more, got {after}", field="after"))
        journal = service_of(info).journal
        position = after
        while True:
            # The journal and graph calls block; they run off the event loop.
            batch = await anyio.to_thread.run_sync(entries_since, journal, position)
            for entry in batch:
                position = entry.seq
                yield JournalEntry.of(entry)
            if len(batch) < BATCH:
                await anyio.sleep(POLL_SECONDS)
