"""A write of the belief layer on what it reads of the graph (beliefs.partial_write over
graph_service.belief_write_parts_from_graph), on every backend: each planner gives the whole layer's entry or
refusal at the head, and each entry of a history with writes of every kind (duplicates, do-not-infer refusals,
detected contradictions, entity merges and splits, associations, corrections) applies, on what it reads as of the
entry before it, exactly as on the whole layer there. What the graph keeps for it (keeps version 3) is what the
replay projects: verify passes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from graph_service.belief_write_parts_from_graph import BeliefWritePartsFromGraph
from graph_service.beliefs.partial_write import write_state
from graph_service.beliefs.state import OPS, BeliefState
from graph_service.errors import UserError
from graph_service.partial_reads import Fetched, Reader
from graph_service.projection import KEEPS_BELIEF_WRITES
from graph_service.service import Service
from tests.backends import Backend
from tests.unit.beliefs.test_write_state import request, same_applied


def _from_graph(service: Service, upto: int, base: tuple[int, int]) -> tuple[BeliefState, BeliefWritePartsFromGraph]:
    source = BeliefWritePartsFromGraph(service.graph, upto)
    return write_state(Reader(source.answer, Fetched()), base), source


@pytest.mark.parametrize("seed", [3, 11])
def test_a_belief_write_on_what_it_reads_of_the_graph_is_the_whole_layers(backend: Backend, seed: int) -> None:
    service = Service.open(backend.settings())
    try:
        assert service.journal.keeps_at_least(KEEPS_BELIEF_WRITES)
        layer, rng = service.state.beliefs, random.Random(seed)
        planned = refused = 0
        for n in range(120):
            op, payload = request(layer, rng, n)
            scratch, _ = _from_graph(service, service.journal.seq, layer.running_fingerprint.sum())
            try:
                draft = layer.plan(op, payload)
            except UserError as refusal:
                with pytest.raises(type(refusal)) as also:
                    scratch.plan(op, payload)
                assert str(also.value) == str(refusal)
                refused += 1
                continue
            assert scratch.plan(op, payload) == draft, (op, payload)
            service.journal.write("ann", lambda draft=draft: draft)
            planned += 1
        assert planned > 60 and refused > 5, (planned, refused)

        whole = BeliefState()
        seen: dict[str, int] = {}
        statements = []
        for entry in service.journal.entries_after(0):
            if entry.op not in OPS:
                continue
            scratch, source = _from_graph(service, entry.seq - 1, whole.running_fingerprint.sum())
            expected = whole.apply(entry)
            same_applied(scratch.apply(entry), expected)
            assert scratch.running_fingerprint.sum() == whole.running_fingerprint.sum()
            # A write's own parts cost a few statements a belief it touches or declines, whatever the store holds.
            made = len(expected.result["beliefs"]) + len(expected.result.get("refusals", ()))
            statements.append(source.statements)
            assert source.statements <= 4 + 4 * made, (entry.op, source.statements, made)
            kind = entry.payload.get("kind") if entry.op == "belief.correct" else None
            for name in [f"{entry.op}:{kind}" if kind else entry.op,
                         *(e["event"] for e in expected.result["events"])]:
                seen[name] = seen.get(name, 0) + 1
        assert {"belief.create", "belief.refused", "belief.associate", "belief.correct:same_entity",
                "belief.correct:different_entity", "belief.correct:inaccurate", "contradiction_detected",
                "inference_refused", "entities_merged"} <= set(seen), seen
        assert sum(statements) > len(statements)  # they were read from the graph, not from the whole layer
        assert service.verify().ok  # what the graph keeps for these reads is what a replay projects
    finally:
        service.close()


def test_a_subject_moved_by_a_merge_is_read_with_its_entity_then(backend: Backend) -> None:
    service = Service.open(backend.settings())
    try:
        beliefs = service.state.beliefs

        def write(op: str, payload: dict[str, Any]) -> None:
            service.journal.write("ann", lambda: beliefs.plan(op, payload))

        write("belief.create", {"proposition": "the pump is cold", "subject": "pump"})
        write("belief.create", {"proposition": "the pump is not cold", "subject": "valve"})
        merged_at = service.journal.seq + 1
        write("belief.correct", {"kind": "same_entity", "subject": "pump", "other": "valve"})
        write("belief.correct", {"kind": "different_entity", "subject": "pump", "other": "valve"})
        for upto, entity in ((merged_at - 1, "valve"), (merged_at, "pump"), (service.journal.seq, "valve")):
            state, _ = _from_graph(service, upto, (0, 0))
            assert state.entities.entity("valve") == entity, upto
            assert state.entities.entity("pump") == "pump"
    finally:
        service.close()
