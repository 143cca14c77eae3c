"""An observer's stream as of a journal position, rebuilt from the graph's history. Pure.

What recall reads of the stream state is the observer's existence (declared, or made by its first row)
and its rows in write order; an operator marking a row inaccurate does not take it out of recall (the
stream keeps every row it wrote). The graph holds both: the observer's Actor node (`observer: true`
once it keeps a stream) and each row's Observation node (its fields, OBSERVED_BY the observer), with
their histories on their WROTE edges (`cypher/observer_stream_upto.cypher`). The rows rebuilt here go
to the same ranking function as the head's recall (`graph_service.stream.recall.recall`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from graph_service.errors import NotFound
from graph_service.history import histories, props_at
from graph_service.stream.rows import Observation, observation_from_row
from graph_service.stream.weights import DEFAULT_TABLE, WeightTable


def _written_at(observation_id: str) -> tuple[int, int]:
    # obs-<seq>-<slot> (rows.observation_id): the position and slot that wrote the row, its write order.
    _, seq, slot = observation_id.split("-")
    return int(seq), int(slot)


def stream_at(history: Iterable[dict[str, Any]], observer: str, position: int,
              table: WeightTable = DEFAULT_TABLE) -> tuple[Observation, ...]:
    """The rows of `observer` (spelt as actors are) a replay of the journal up to `position` holds, in
    write order, from its Actor node's and its Observation nodes' histories (rows of label, id, seq, op,
    by, at, changes). NotFound, as the head's recall, when it kept no stream by then; HistoryMissing when
    a history does not reach `position`. A message heard by the observer is an Observation too, but no
    row of its stream: only nodes the observer's own rows wrote (`observer` set) count."""
    states = histories(history)
    actor = props_at(states.get(("Actor", observer), []), position)
    rows = [(node_id, props) for (label, node_id), found in states.items()
            if label == "Observation" and (props := props_at(found, position)) is not None]
    return stream_of(actor, rows, observer, table)


def stream_now(nodes: Iterable[dict[str, Any]], observer: str,
               table: WeightTable = DEFAULT_TABLE) -> tuple[Observation, ...]:
    """The rows of `observer` the graph holds now, in write order, from its Actor node's and its Observation
    nodes' properties (rows of label and props: `cypher/observer_stream.cypher`); NotFound as stream_at."""
    found = list(nodes)
    actor = next((n["props"] for n in found if n["label"] == "Actor"), None)
    return stream_of(actor, [(n["props"]["id"], n["props"]) for n in found if n["label"] == "Observation"], observer,
                     table)


def newest_kept(nodes: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """Of the rows `cypher/observer_stream_newest.cypher` gives, the Actor's and each Observation's once (for
    `stream_now`), and the cut `recall.recall_of_newest` is told: the weights some of whose rows were left out,
    each with the oldest tick of its newest rows kept."""
    others: list[dict[str, Any]] = []
    rows: dict[str, dict[str, Any]] = {}
    newest: dict[int, list[int]] = {}
    total: dict[int, int] = {}
    for node in nodes:
        if node["label"] != "Observation":
            others.append(node)
            continue
        rows.setdefault(node["props"]["id"], node)
        weight = node["props"]["weight"]
        total[weight] = node["weight_rows"]
        if node["kept"] == "newest":
            newest.setdefault(weight, []).append(node["props"]["tick"])
    kept = Counter(node["props"]["weight"] for node in rows.values())
    return [*others, *rows.values()], {weight: min(newest[weight]) for weight in total if kept[weight] < total[weight]}


def stream_of(actor: dict[str, Any] | None, observations: Iterable[tuple[str, dict[str, Any]]], observer: str,
              table: WeightTable = DEFAULT_TABLE) -> tuple[Observation, ...]:
    """The observer's rows in write order, given its Actor node's properties and the ids and properties of the
    Observation nodes by it (a message it heard is one too, but no row of its stream: only those with `observer` set to
    it count); NotFound, as the head's recall, for an observer that keeps no stream."""
    if actor is None or not actor.get("observer"):
        raise NotFound(f"observer {observer} is not declared", field="observer")
    rows = [observation_from_row(props, *_written_at(node_id), table) for node_id, props in observations
            if props.get("observer") == observer]
    return tuple(sorted(rows, key=lambda r: r.order))
