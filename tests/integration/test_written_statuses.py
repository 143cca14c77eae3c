"""A replay that takes each knowledge entry as the graph holds it (the statuses it gave the items it wrote,
StoreState's `written_statuses`) leaves every other domain as the full replay does: the evidence that went
and came back with the items, the beliefs re-assessed, each belief's versions, the stream, the statements and
the questions, and every item's status. That is what a start needs of the knowledge entries once the knowledge
state is no longer held in memory (docs/stateless-path.md)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from graph_service.service import Service
from graph_service.state import StoreState, replay
from graph_service.written_statuses import StatusesFromGraph
from tests.backends import Backend
from tests.integration.knowledge_histories import write_knowledge_history


def _beliefs(state: StoreState) -> dict[str, Any]:
    beliefs = state.beliefs
    return {
        "fingerprint": beliefs.running_fingerprint.value(),
        "rows": {i: dataclasses.asdict(r) for i, r in sorted(beliefs.rows.items())},
        "beliefs": {i: (b.version, b.status, b.updated_seq, b.breakdown, list(b.evidence))
                    for i, b in sorted(beliefs.beliefs.items())},
        "links": sorted((k, dataclasses.astuple(v)) for k, v in beliefs.links.items()),
        "refusals": list(beliefs.refusals),
    }


def _others(state: StoreState) -> dict[str, Any]:
    return {
        "observations": state.stream.observations(),
        "observers": state.stream.observers(),
        "questions": state.questions.questions(),
        "position": state.position,
    }


@pytest.mark.parametrize("seed", [5, 29])
def test_a_replay_taking_knowledge_entries_from_the_graph_leaves_the_other_domains_as_the_full_one(
        backend: Backend, seed: int) -> None:
    service = Service.open(backend.settings())
    try:
        write_knowledge_history(service, 200, seed)
        entries = list(service.journal.entries_after(0))
        whole = replay(entries)
        statuses = StatusesFromGraph(service.graph, page=64)
        taken = StoreState(statuses)
        for entry in entries:
            taken.apply(entry)
        assert statuses.statements >= len(entries) // 64  # read a range at a time, never an entry at a time
        assert not taken.knowledge.items  # nothing of the knowledge state was held
        every_item = sorted(whole.knowledge.items)
        assert {i: taken.item_status(i) for i in every_item} == {i: whole.knowledge.status(i) for i in every_item}
        assert {i: whole.item_status(i) for i in every_item} == {i: whole.knowledge.status(i) for i in every_item}
        fell = [r for r in whole.beliefs.rows.values() if r.retracted and r.root_kind == "item"]
        assert fell, "the history must take evidence down with an item for this to test anything"
        assert _beliefs(taken) == _beliefs(whole)
        assert _others(taken) == _others(whole)
    finally:
        service.close()
