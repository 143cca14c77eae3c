"""What a knowledge state's applies returned, recorded for comparison: the tests that apply an entry on a
region of the store check it against the whole store's state with these."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from graph_service.domain import Applied
from graph_service.journal.chain import Entry
from graph_service.projection import Projection
from graph_service.state import StoreState

Plain = tuple[list[Any], list[Any]]


def plain(projection: Projection) -> Plain:
    """A projection's nodes and edges as plain tuples, in order."""
    return ([dataclasses.astuple(n) for n in projection.nodes], [dataclasses.astuple(e) for e in projection.edges])


def differences(got: Plain, want: Plain) -> list[Any]:
    """What differs between two projections, node by node (for a failure's message)."""
    out: list[Any] = []
    for a, b in zip(got[0], want[0], strict=False):
        if a != b:
            out.append((a[0], a[1], {k: (a[2].get(k), b[2].get(k)) for k in a[2].keys() | b[2].keys()
                                     if a[2].get(k) != b[2].get(k)}) if a[:2] == b[:2] else (a[:2], b[:2]))
    if len(got[0]) != len(want[0]):
        out.append(("nodes", [n[:2] for n in got[0]], [n[:2] for n in want[0]]))
    if got[1] != want[1]:
        out.append(("edges", got[1], want[1]))
    return out


def recording(state: StoreState) -> list[tuple[Entry, Plain, Any, dict[str, int | None]]]:
    """Record every knowledge apply of this state (an entry's own, or an answer's operation) with its
    projection as it was returned (before another domain's effects are added to it), its result and the
    done times it changed."""
    seen: list[tuple[Entry, Plain, Any, dict[str, int | None]]] = []
    apply: Callable[[Entry], Applied] = state.knowledge.apply

    def recorded(entry: Entry) -> Applied:
        applied = apply(entry)
        seen.append((entry, plain(applied.projection), applied.result, dict(state.knowledge.scheduled)))
        return applied

    state.knowledge.apply = recorded  # type: ignore[method-assign]
    return seen
