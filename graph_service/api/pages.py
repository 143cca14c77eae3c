"""Pages of lists held in order, as plain data: which nodes a page holds and at which places, whether
more follow or precede, and how many match in all. The GraphQL connections are built from a Page on the
event loop (graph_service.api.connections); graph_service.jobs.apart's as-of reads cut the same Page in a
process of their own and hand it back as JSON. Nothing here imports strawberry, so the child does not
pay for it."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph_service.errors import UserError

T = TypeVar("T")
U = TypeVar("U")
MAX_PAGE = 500
DEFAULT_PAGE = 50


def page_size(first: int | None) -> int:
    """How many nodes a page of `first` holds (DEFAULT_PAGE for none); UserError unless 1 to MAX_PAGE."""
    if first is None:
        return DEFAULT_PAGE
    if first < 1 or first > MAX_PAGE:
        raise UserError(f"first must be between 1 and {MAX_PAGE}, got {first}", field="first")
    return first


def encode_cursor(kind: str, position: int) -> str:
    """The cursor naming place `position` of a list of `kind` (base64 of "kind:position")."""
    return base64.b64encode(f"{kind}:{position}".encode()).decode()


def decode_cursor(kind: str, cursor: str | None) -> int:
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


class Counted:
    """How many rows of a list match in all (`total`) and whether any match before a page (`earlier`): each
    known, or read when first asked and then kept. A count reads every row it counts, so a page read from the
    graph asks for one only when its reader shows it (totalCount, hasPreviousPage), and a page costs what it
    shows."""

    def __init__(self, total: int | Callable[[], int], earlier: bool | Callable[[], bool]) -> None:
        self._total, self._earlier = total, earlier

    @property
    def total(self) -> int:
        if callable(self._total):
            self._total = int(self._total())
        return self._total

    @property
    def earlier(self) -> bool:
        if callable(self._earlier):
            self._earlier = bool(self._earlier())
        return self._earlier

    def __eq__(self, other: object) -> bool:
        # Equal when they count the same (reading both): pages compare by what they show and count.
        if not isinstance(other, Counted):
            return NotImplemented
        return (self.total, self.earlier) == (other.total, other.earlier)

    __hash__ = None  # type: ignore[assignment]  # what it holds is read late, so it has no stable hash

    def __repr__(self) -> str:
        return f"Counted(total={self._total!r}, earlier={self._earlier!r})"


class ShowsCounts:
    """A page's `counted` as the page shows it: whether matching rows precede it (`earlier`) and how many
    match in all (`total`)."""

    counted: Counted

    @property
    def earlier(self) -> bool:
        return self.counted.earlier

    @property
    def total(self) -> int:
        return self.counted.total


@dataclass(frozen=True)
class Page(ShowsCounts, Generic[T]):
    """One page: its (position in the whole list, node) rows in order, whether rows follow it (`more`), and
    `counted`: whether matching rows precede it (`earlier`) and how many match in all (`total`)."""

    rows: list[tuple[int, T]]
    more: bool
    counted: Counted

    def map(self, node_of: Callable[[T], U]) -> Page[U]:
        """The same page with every node turned by `node_of` (its places and counts kept)."""
        return Page([(position, node_of(node)) for position, node in self.rows], self.more, self.counted)

    def as_json(self, plain: Callable[[T], Any]) -> dict[str, Any]:
        """The page as plain JSON, each node as `plain` gives it (what an apart job hands back)."""
        return {"rows": [[position, plain(node)] for position, node in self.rows], "more": self.more,
                "earlier": self.earlier, "total": self.total}

    @staticmethod
    def from_json(answer: dict[str, Any], node_of: Callable[[Any], U]) -> Page[U]:
        """The page `as_json` gave, each node rebuilt by `node_of` from its plain JSON."""
        return Page([(int(position), node_of(node)) for position, node in answer["rows"]], bool(answer["more"]),
                    Counted(int(answer["total"]), bool(answer["earlier"])))


def page_of(kind: str, numbered: Sequence[tuple[int, T]], first: int | None, after: str | None) -> Page[T]:
    """The page after the cursor `after` of `numbered`: (position in the whole list, node) pairs, filtered,
    in order. A cursor is a position in the whole list, which only grows at the end, so it names the same
    place on every later read, however a filter's matches change. UserError (field first or after, in that
    order) for a page size or cursor this list does not take."""
    size, start = page_size(first), decode_cursor(kind, after)
    rest = [(position, node) for position, node in numbered if position > start]
    return Page(rows=rest[:size], more=len(rest) > size,
                counted=Counted(len(numbered), len(rest) < len(numbered)))
