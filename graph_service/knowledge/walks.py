"""Graph walks over items as pure functions: the reference for the Cypher versions.

Each walk goes level by level with a visited set, so its cost is the nodes and edges it touches,
however many parallel or diamond-shaped paths the premises form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

Neighbours = Callable[[str], Iterable[str]]


def upstream(ids: Iterable[str], premises: Neighbours, competitors: Neighbours) -> dict[str, int]:
    """Items whose state can change the state of `ids`, with the level they were first reached at.

    Follows premises (transitively) and same-key competitors (and what those rest on); the given
    ids themselves are not listed.
    """
    start = list(dict.fromkeys(ids))
    seen: set[str] = set(start)
    found: dict[str, int] = {}
    frontier = start
    depth = 0
    while frontier:
        depth += 1
        nxt: list[str] = []
        for node in frontier:
            for other in (*premises(node), *competitors(node)):
                if other not in seen:
                    seen.add(other)
                    found[other] = depth
                    nxt.append(other)
        frontier = nxt
    return found


def downstream(ids: Iterable[str], dependents: Neighbours) -> dict[str, int]:
    """Items resting on `ids`, transitively, with their level: what falls if they go."""
    return upstream(ids, dependents, lambda _node: ())


def component(ids: Iterable[str], neighbours: Neighbours) -> set[str]:
    """The connected component(s) of `ids` (including them) under a symmetric neighbour relation."""
    seen: set[str] = set(ids)
    frontier = list(seen)
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for other in neighbours(node):
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    return seen
