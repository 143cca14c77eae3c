"""What someone said becomes belief evidence inside the say entry (graph_service.state composes it)."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.domain import Applied
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.state import StoreState, replay


class Store:
    def __init__(self) -> None:
        self.state = StoreState()
        self.log: list[Entry] = []

    def write(self, domain: Any, op: str, by: str = "ann", **payload: Any) -> Applied:
        draft = domain.plan(op, payload)
        entry = seal(self.log[-1].hash if self.log else GENESIS, len(self.log) + 1, draft.op, by, 1_000, draft.payload)
        self.log.append(entry)
        return self.state.apply(entry)

    def say(self, text: str, speaker: str = "alice", tick: int = 1) -> Applied:
        return self.write(self.state.statements, "statement.say", text=text, speaker=speaker, tick=tick)


def test_factual_claims_become_rows_attributed_to_who_stands_behind_them() -> None:
    store = Store()
    applied = store.say("The dam is full. Bob said that the dam is full. Is the dam full?")
    specs = applied.result
    assert [(s["family"], s["belief"], s["evidence"]) for s in specs] == [
        ("alice", "b1.1", "e1.1"), ("bob", "b1.1", "e1.2")]
    rows = store.state.beliefs.evidence_of("b1.1")
    assert [(r.family, r.actor, r.root_kind, r.root_ids, r.derivation, r.origin) for r in rows] == [
        ("actor:alice", "alice", "observation", ("obs-1-0",), "assertion", "statement"),
        ("actor:bob", "bob", "observation", ("obs-1-0",), "assertion", "statement"),
    ]
    belief = store.state.beliefs.beliefs["b1.1"]
    assert (belief.epistemic_kind, belief.version, belief.breakdown.supporting_families) == ("claim", 1, 2)
    labels = [(n.label, n.id) for n in applied.projection.nodes]
    assert ("Belief", "b1.1") in labels and ("BeliefVersion", "b1.1/v1") in labels
    yielded = [(e.src, e.dst) for e in applied.projection.edges if e.rel == "YIELDED"]
    assert yielded == [("asr-1-0", "e1.1"), ("asr-1-1", "e1.2")]


def test_a_later_statement_adds_to_the_same_belief_and_replays_identically() -> None:
    store = Store()
    store.say("The dam is full.")
    store.say("I doubt the dam is full.", speaker="carl", tick=2)
    rows = store.state.beliefs.evidence_of("b1.1")
    assert [(r.family, r.direction) for r in rows] == [("actor:alice", "for"), ("actor:carl", "against")]
    again = replay(store.log)
    assert again.fingerprint() == store.state.fingerprint()
    assert again.has_observation("obs-2-0")


def test_a_do_not_infer_pattern_refuses_a_new_belief_from_a_statement() -> None:
    store = Store()
    store.write(store.state.beliefs, "belief.correct", by="op", kind="do_not_infer", proposition="the dam is full")
    applied = store.say("The dam is full.")
    assert applied.result[0]["belief"] is None and applied.result[0]["evidence"] is None
    assert store.state.beliefs.beliefs == {}
    assert not any(n.label == "Belief" for n in applied.projection.nodes)


def test_marking_the_message_inaccurate_flags_its_node_and_retracts_its_rows() -> None:
    store = Store()
    store.say("The dam is full.")
    applied = store.write(store.state.beliefs, "belief.correct", by="op", kind="inaccurate",
                          root_kind="observation", root_id="obs-1-0", reason="prank call")
    flagged = [n for n in applied.projection.nodes if n.label == "Observation"]
    assert [(n.id, n.props["inaccurate"], n.props["inaccurate_reason"]) for n in flagged] == [
        ("obs-1-0", True, "prank call")]
    assert store.state.beliefs.beliefs["b1.1"].confidence == pytest.approx(0.5)
    # An observation nobody wrote gets no node.
    ghost = store.write(store.state.beliefs, "belief.correct", by="op", kind="inaccurate",
                        root_kind="observation", root_id="obs-99-0")
    assert not any(n.label == "Observation" for n in ghost.projection.nodes)
