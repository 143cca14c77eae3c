"""Graph walks level by level: each node is expanded once, so a walk costs O(nodes + edges touched).

Variable-length Cypher patterns enumerate paths and blow up on premise DAGs full of diamonds
(SPEC 1.1); here every level is one query over the frontier, with a visited set in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from graph_service.history import HistoryMissing
from graph_service.storage.port import GraphPort
from graph_service.types import Row


@dataclass(frozen=True)
class Reached:
    """A node a walk reached: at which depth, from which node, along which step."""

    id: str
    depth: int
    via: str
    step: str


def walk(graph: GraphPort, start: Iterable[str], steps: Sequence[tuple[str, str]],
         max_depth: int | None = None, upto: int | None = None,
         keep: Callable[[Row], bool] | None = None) -> list[Reached]:
    """Breadth-first from `start` over the step queries given as (query name, step label).

    Each step query takes `$asked.frontier` (ids, in a map: see cypher/item_reads_upto) and returns rows
    `{via, id}`. The start nodes are not listed; every other node appears once, at the depth it was first
    reached (ties by query order).
    `upto`: the walk as of that journal position, over `as_of_steps` whose rows also say `since`, the
    position that wrote the edge (they are given `$upto` too); later ones are left out, and
    HistoryMissing is raised for an edge written before the store kept it.
    `keep`: a row it refuses is left out, as an edge the step query itself had not returned (as of a
    position: an evidence row retracted then, which the head's query leaves out by its property now).
    """
    params = {} if upto is None else {"upto": upto}  # a step as of a position may read histories up to it
    seen = set(start)
    frontier = sorted(seen)
    reached: list[Reached] = []
    depth = 0
    while frontier and (max_depth is None or depth < max_depth):
        depth += 1
        next_frontier: list[str] = []
        for query, label in steps:
            for row in graph.run(query, params | {"asked": {"frontier": frontier}}):
                if upto is not None:
                    if row["since"] is None:
                        raise HistoryMissing(upto)
                    if row["since"] > upto:
                        continue
                if keep is not None and not keep(row):
                    continue
                node = row["id"]
                if node not in seen:
                    seen.add(node)
                    next_frontier.append(node)
                    reached.append(Reached(node, depth, row["via"], label))
        frontier = sorted(next_frontier)
    return reached


ITEM_UPSTREAM = (("item_premises_step", "DERIVED_FROM"), ("item_same_key_step", "SAME_KEY"))
ITEM_DEPENDENTS = (("item_dependents_step", "DERIVED_FROM"),)
ITEM_COMPONENT = (
    ("item_premises_step", "DERIVED_FROM"),
    ("item_dependents_step", "DERIVED_FROM"),
    ("item_same_key_step", "SAME_KEY"),
)
# The same walks as of a position (see `walk`'s `upto`). The belief walks' steps that keep only live evidence
# rows return each row's history up to the position as `writes`, for `keep` (graph_service.beliefs.as_of).
AS_OF_STEPS = {"item_premises_step": "item_premises_step_upto", "item_dependents_step": "item_dependents_step_upto",
               "item_same_key_step": "item_same_key_step_upto",
               "belief_evidence_step": "belief_evidence_step_upto",
               "belief_root_observation_step": "belief_root_observation_step_upto",
               "belief_root_item_step": "belief_root_item_step_upto",
               "belief_root_belief_step": "belief_root_belief_step_upto",
               "belief_observation_dependents_step": "belief_observation_dependents_step_upto",
               "belief_item_dependents_step": "belief_item_dependents_step_upto",
               "belief_belief_dependents_step": "belief_belief_dependents_step_upto",
               "belief_bears_on_step": "belief_bears_on_step_upto"}


def as_of_steps(steps: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """These steps' queries as of a position (KeyError for a step that has none)."""
    return tuple((AS_OF_STEPS[query], label) for query, label in steps)
