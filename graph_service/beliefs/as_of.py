"""Belief reads as of a journal position, from the nodes' histories the graph keeps (graph_service.history):
a node's properties then, a page of beliefs by confidence over their states then, and what a belief walk
says of each node it reaches. Pure but for beliefs_then, which reads every belief's history from a graph
(so a process of its own can: graph_service.jobs.apart); the other callers read the histories, these functions
fold them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph_service.history import HistoryMissing, node_states
from graph_service.storage.port import GraphPort

CONFIDENCE_KEY_UNITS = 1_000_000_000
"""A page's keyset key is the confidence in units of 1e-9 (cypher/belief_page_confidence_*.cypher)."""


def props_then(writes: Iterable[Mapping[str, Any]], position: int) -> dict[str, Any] | None:
    """A node's properties after these writes of its history (each a node_history row, all at or before
    `position`); None when there are none (nothing had written it by then), HistoryMissing when one of
    them predates kept history."""
    states = node_states(writes)  # type: ignore[arg-type]
    if not states:
        return None
    if states[-1].state is None:  # once unknown, unknown from there on (node_states)
        raise HistoryMissing(position)
    return states[-1].state


def confidence_key(confidence: float) -> int:
    """`round(confidence * 1e9)` as both backends' Cypher computes it for the head's page (half away from
    zero; a confidence is positive), so a page as of a position orders and resumes as the head's does."""
    scaled = float(confidence) * CONFIDENCE_KEY_UNITS
    whole = math.floor(scaled)
    return int(whole) + (1 if scaled - whole >= 0.5 else 0)


@dataclass(frozen=True, slots=True)
class BeliefPage:
    """One page of beliefs (properties with their keys, in order), whether more follow, and how many match."""

    rows: list[tuple[int, dict[str, Any]]]
    more: bool
    total: int


def beliefs_then(graph: GraphPort, as_of: int) -> list[dict[str, Any]]:
    """Every belief created by position `as_of`, with its properties as its history says they were then.

    The head's page is read with the graph's own ordering; as of a position the states then are not
    properties to order by, so every belief created by then is folded from its history (one statement,
    one row per belief) and filtered and ordered by belief_page: the cost grows with the beliefs written
    by then and their writes, not with the page."""
    found = []
    for row in graph.run("every_belief_history_upto", {"upto": as_of}):
        props = props_then(row["writes"], as_of)
        if props is not None:
            found.append(props)
    return found


def matches(props: Mapping[str, Any], status: str | None, subject: str | None, kind: str | None) -> bool:
    """Does a belief with these properties pass the filter (every criterion given must match)?"""
    return ((status is None or props.get("status") == status)
            and (subject is None or props.get("subject") == subject)
            and (kind is None or props.get("epistemic_kind") == kind))


def belief_page(beliefs: Iterable[Mapping[str, Any]], *, status: str | None, subject: str | None, kind: str | None,
                descending: bool, after_key: int | None, after_id: str | None, limit: int) -> BeliefPage:
    """The page the head's query (belief_page_confidence_desc/_asc, belief_count) gives over these belief
    properties: those matching the filter, by confidence key either way and ties by id, after the keyset
    cursor (after_key, after_id), at most `limit`; `total` counts every match."""
    chosen = [(confidence_key(p["confidence"]), dict(p)) for p in beliefs if matches(p, status, subject, kind)]
    sign = -1 if descending else 1
    chosen.sort(key=lambda kp: (sign * kp[0], kp[1]["id"]))
    if after_id is not None:
        assert after_key is not None
        chosen_after = [(k, p) for k, p in chosen
                        if sign * k > sign * after_key or (k == after_key and p["id"] > after_id)]
    else:
        chosen_after = chosen
    return BeliefPage(rows=chosen_after[:limit], more=len(chosen_after) > limit, total=len(chosen))


@dataclass(frozen=True, slots=True)
class WalkNode:
    """What a belief walk says of a node it reached (the fields cypher/belief_nodes_by_id.cypher reads)."""

    status: str | None = None
    summary: str | None = None
    confidence: float | None = None
    gone: bool = False


def walk_node(label: str, props: Mapping[str, Any] | None) -> WalkNode:
    """A node's walk description from its properties (as of a position: its properties then), as
    belief_nodes_by_id describes it at the head: a belief's status, proposition and confidence; an
    evidence row's direction, family and retraction; an observation's kind, text (else subject) and
    inaccuracy; an item's status and summary. Nothing for a node with no properties."""
    if not props:
        return WalkNode()
    if label == "Belief":
        return WalkNode(props.get("status"), props.get("proposition"), props.get("confidence"))
    if label == "Evidence":
        return WalkNode(props.get("direction"), props.get("family"), gone=bool(props.get("retracted")))
    if label == "Observation":
        text = props.get("text")
        return WalkNode(props.get("kind"), text if text is not None else props.get("subject"),
                        gone=bool(props.get("inaccurate")))
    return WalkNode(props.get("status"), props.get("summary"))


def live_then(row: Mapping[str, Any], position: int) -> bool:
    """Does a walk step's row, as of `position`, lead to a node the walk goes on through? The steps that
    at the head keep only live evidence rows (`NOT e.retracted`) carry, as `writes`, the row's history up
    to the position: it goes on only if the row was not retracted then. Other rows always do."""
    if "writes" not in row:
        return True
    props = props_then(row["writes"], position)
    return props is not None and not props.get("retracted")
