"""beliefs.partial, pure: a belief's and a row's records rebuilt from their node properties are the layer's
own, and the cascade on a scratch state fed from node properties changes what the whole layer's sandbox
changes, for random retractions along random histories with contradictions and re-weighed counter rows."""

from __future__ import annotations

import copy
from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.beliefs.partial import (
    BELIEFS,
    BY_ROOT,
    LINKS,
    PARTNERS,
    ROWS,
    TALLIES,
    belief_of_props,
    cascade_state,
    creation_order,
    links_of,
    row_of_props,
    tallies_of,
)
from graph_service.beliefs.state import BeliefState
from graph_service.errors import UserError
from graph_service.impact import impact_on, store_impact
from graph_service.knowledge import planning
from graph_service.partial_reads import Fetched, NeedMore, Reader
from tests.unit.test_store_state import Log, belief_on, fact


def rows_of(layer: BeliefState, belief_id: str) -> list[Any]:
    return [row_of_props(layer.rows[r].node_props()) for r in layer.beliefs[belief_id].evidence]


def from_props(layer: BeliefState, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
    """What a graph source gives, built from the layer's node properties (as the graph keeps them)."""
    if part == BY_ROOT:
        found: Any = list(layer._by_root.get(key, ())) or None  # type: ignore[call-overload]
        extra = {ROWS: {r: row_of_props(layer.rows[r].node_props()) for r in found or ()}}
        return {BY_ROOT: {key: found}, **extra}
    belief_id: Any = key
    if part == ROWS:
        return {ROWS: {key: row_of_props(layer.rows[belief_id].node_props()) if belief_id in layer.rows else None}}
    if part == LINKS:
        return {LINKS: {key: copy.deepcopy(layer.links.get(key))}}  # type: ignore[call-overload]
    if belief_id not in layer.beliefs:
        return {part: {key: None}}
    rows = rows_of(layer, belief_id)
    edges = [{"partner": p, "a": layer.links[k].a, "how": layer.links[k].how, "active": layer.links[k].active}
             for p, k in layer._partners.get(belief_id, {}).items()]
    on_it = [row_of_props(layer.rows[r].node_props()) for r in layer._by_root.get(("belief", belief_id), ())]
    partners, links = links_of(belief_id, rows, on_it, edges)
    return {BELIEFS: {key: belief_of_props(layer.beliefs[belief_id].node_props(), rows)},
            ROWS: {r.id: r for r in [*rows, *on_it]}, TALLIES: {key: tallies_of(rows)}, PARTNERS: {key: partners},
            LINKS: links}


def history(steps: list[tuple[str, int, int]]) -> tuple[Log, list[str]]:
    log = Log()
    items: list[str] = []
    beliefs: list[str] = []
    for n, (kind, x, y) in enumerate(steps):
        try:
            if kind == "fact" or not items:
                items.append(fact(log, f"s{n}", x % 3))
            elif kind == "derived":
                items.append(fact(log, f"d{n}", y % 3, derived_from=[items[x % len(items)]]))
            elif kind == "belief":
                beliefs.append(belief_on(log, f"claim {n}", list(dict.fromkeys(
                    [items[x % len(items)], items[y % len(items)]]))))
            elif kind == "contradict" and len(beliefs) > 1:
                log.write(log.state.beliefs.plan("belief.contradict", {"a": beliefs[x % len(beliefs)],
                                                                       "b": beliefs[y % len(beliefs)]}))
            elif kind == "retract":
                log.write(planning.plan_retract(log.state.knowledge, items[x % len(items)], "random"))
        except UserError:
            continue
    return log, items


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["fact", "derived", "belief", "contradict", "retract"]),
                          st.integers(0, 40), st.integers(0, 40)), min_size=6, max_size=40))
def test_the_cascade_on_what_it_reads_changes_what_the_whole_layer_changes(steps: list) -> None:
    log, items = history(steps)
    state = log.state
    layer = state.beliefs
    for belief in layer.beliefs.values():  # the records, from their node properties
        rebuilt = belief_of_props(belief.node_props(), rows_of(layer, belief.id))
        assert rebuilt == belief, belief.id
        assert [creation_order(r) for r in belief.evidence] == sorted(creation_order(r) for r in belief.evidence)
    for item in dict.fromkeys(items):
        if state.knowledge.status(item) == "retracted":
            continue
        got = impact_on(state.knowledge, lambda: cascade_state(Reader(lambda p, k: from_props(layer, p, k), Fetched())),
                        state.present, state.position + 1, [item], [])
        assert got == store_impact(state, [item]), item


def test_what_the_cascade_does_not_read_has_no_reader() -> None:
    state = cascade_state(Reader(lambda part, key: {part: {key: None}}, Fetched()))
    assert state.beliefs.get("b1.1") is None
    with pytest.raises(NeedMore):
        state.find_belief("anything", None)  # the text index: a creation's read, not the cascade's


def test_a_contradiction_partner_moves_with_what_falls_on_what_it_reads() -> None:
    log, items = history([("fact", 0, 0), ("fact", 1, 0), ("belief", 0, 0), ("belief", 1, 1), ("contradict", 0, 1)])
    state = log.state
    layer = state.beliefs
    got = impact_on(state.knowledge, lambda: cascade_state(Reader(lambda p, k: from_props(layer, p, k), Fetched())),
                    state.present, state.position + 1, [items[0]], [])
    # The belief on the item falls, and its partner's counter row from it is re-weighed: both move.
    assert len(got.beliefs) == 2 and got == store_impact(state, [items[0]]), got
