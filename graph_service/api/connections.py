"""Relay connections over lists the service holds in order (questions, unknowns): a page of edges,
`pageInfo`, and `totalCount`, the number of nodes matching however the pages are cut. Which nodes a
page holds is cut by graph_service.api.pages (plain data, also cut in a process of its own for an as-of
read); the connection is built from that Page here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

import strawberry

from graph_service.api.journal_types import PageInfo
from graph_service.api.pages import Counted, Page, encode_cursor, page_of

T = TypeVar("T")


@strawberry.type(description="One node of a page and the cursor to resume after it.")
class Edge(Generic[T]):
    cursor: str = strawberry.field(description="Pass as `after` to continue after this node.")
    node: T = strawberry.field(description="The node.")


@strawberry.type(description="A page of nodes in order, with where it ends and how many there are in all.")
class Connection(Generic[T]):
    edges: list[Edge[T]] = strawberry.field(description="This page's nodes, in order.")
    page_info: PageInfo = strawberry.field(description="Whether there are more, and the cursors that bound it.")
    counted: strawberry.Private[Counted]

    @strawberry.field(description="How many nodes match, across every page.")
    def total_count(self) -> int:
        # Read only when asked: on a list read from the graph it counts every match (pages.Counted).
        return self.counted.total


def connection_of(kind: str, page: Page[T]) -> Connection[T]:
    """The connection showing `page` of a list of `kind`: an edge per row, its cursor naming the row's place."""
    edges = [Edge(cursor=encode_cursor(kind, position), node=node) for position, node in page.rows]
    return Connection(edges=edges, page_info=PageInfo.of([e.cursor for e in edges], page.more, page.counted),
                      counted=page.counted)


def paged(kind: str, numbered: Sequence[tuple[int, T]], first: int | None, after: str | None) -> Connection[T]:
    """The connection of the page after the cursor `after` of `numbered` (see pages.page_of)."""
    return connection_of(kind, page_of(kind, numbered, first, after))
