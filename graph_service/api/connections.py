"""Relay connections over lists the service holds in order (questions, unknowns): a page of edges,
`pageInfo`, and `totalCount`, the number of nodes matching however the pages are cut."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import strawberry

from graph_service.api.journal_types import PageInfo, page_size
from graph_service.errors import UserError

T = TypeVar("T")


@strawberry.type(description="One node of a page and the cursor to resume after it.")
class Edge(Generic[T]):
    cursor: str = strawberry.field(description="Pass as `after` to continue after this node.")
    node: T = strawberry.field(description="The node.")


@strawberry.type(description="A page of nodes in order, with where it ends and how many there are in all.")
class Connection(Generic[T]):
    edges: list[Edge[T]] = strawberry.field(description="This page's nodes, in order.")
    page_info: PageInfo = strawberry.field(description="Whether there are more, and the cursors that bound it.")
    total_count: int = strawberry.field(description="How many nodes match, across every page.")


def _encode(kind: str, position: int) -> str:
    return base64.b64encode(f"{kind}:{position}".encode()).decode()


def _decode(kind: str, cursor: str | None) -> int:
    """The position after which the page starts; 0 for none; UserError for a cursor not of this list."""
    if cursor is None:
        return 0
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        name, _, position = text.partition(":")
        if name != kind or not position.isdigit():
            raise ValueError
        return int(position)
    except ValueError:
        raise UserError(f"after: {cursor!r} is not a {kind} cursor", field="after") from None


def paged(kind: str, numbered: Sequence[tuple[int, T]], first: int | None, after: str | None) -> Connection[T]:
    """The page after the cursor `after` of `numbered`: (position in the whole list, node) pairs, filtered,
    in order. A cursor is a position in the whole list, which only grows at the end, so it names the same
    place on every later read, however a filter's matches change."""
    size, start = page_size(first), _decode(kind, after)
    rest = [(position, node) for position, node in numbered if position > start]
    edges = [Edge(cursor=_encode(kind, position), node=node) for position, node in rest[:size]]
    return Connection(
        edges=edges,
        page_info=PageInfo(has_next_page=len(rest) > size, has_previous_page=len(rest) < len(numbered),
                           start_cursor=edges[0].cursor if edges else None,
                           end_cursor=edges[-1].cursor if edges else None),
        total_count=len(numbered),
    )


def numbered(nodes: Sequence[T], keep: Callable[[T], bool]) -> list[tuple[int, T]]:
    """The nodes `keep` keeps, each with its 1-based position in `nodes`."""
    return [(position, node) for position, node in enumerate(nodes, 1) if keep(node)]
