"""Operator corrections: wrong, do not infer, inaccurate root, same / different entity."""

from __future__ import annotations

import pytest

from graph_service.errors import Conflict

from .harness import Harness, row


def test_wrong_pins_rejected_adds_operator_counter_evidence_and_keeps_history():
    h = Harness()
    b = h.create("the canal froze last night", row(0.9, "actor:ann"))
    applied = h.do("belief.correct", {"kind": "wrong", "belief": b, "reason": "checked the canal"}, by="op-1")
    belief = h.state.beliefs[b]
    assert belief.status == "rejected" and belief.pinned == "rejected"
    assert {"event": "belief_retracted", "belief": b, "by": "op-1"} in applied.result["events"]
    operator_row = h.state.rows[applied.result["evidence"][0]]
    assert (operator_row.direction, operator_row.derivation, operator_row.family) == (
        "against",
        "operator",
        "operator:op-1",
    )
    # σ(1.5 × 0.9 × 0.6) = σ(0.81) = 0.692 (tentative); then for 0.9 × 0.6 − against 1.0
    # → x = 1.5 × (0.54 − 1.0) = −0.69; σ(−0.69) = 0.33403307
    assert belief.confidence == pytest.approx(0.33403307)
    assert [v["status"] for v in h.versions(b)] == ["tentative", "rejected"]
    node = next(n for n in applied.projection.nodes if n.label == "Belief")
    assert node.props["pinned"] is True and node.props["pinned_status"] == "rejected"
    with pytest.raises(Conflict):
        h.state.plan("belief.correct", {"kind": "wrong", "belief": b})


def test_wrong_belief_is_a_root_that_falls():
    h = Harness()
    premise = h.create("the pump failed", row(0.9, "actor:ann"))
    derived = h.create(
        "the basement flooded",
        row(0.6, "actor:ann", derivation="inference", root_kind="belief", root_ids=[premise]),
    )
    edges = {(e.rel, e.src, e.dst) for e in h.applied[-1].projection.edges}
    assert ("SUPPORTS", premise, derived) in edges and ("DERIVED_FROM", derived, premise) in edges
    applied = h.do("belief.correct", {"kind": "wrong", "belief": premise}, by="op")
    assert derived in applied.result["beliefs"]
    assert all(r.retracted for r in h.state.evidence_of(derived))
    assert h.state.beliefs[derived].confidence == 0.5
    with pytest.raises(Conflict, match="rejected"):
        h.state.plan(
            "evidence.add", {"belief": derived, **row(0.5, "x", root_kind="belief", root_ids=[premise])}
        )


def test_do_not_infer_refuses_matching_creations_as_journal_entries():
    h = Harness()
    applied = h.do(
        "belief.correct", {"kind": "do_not_infer", "proposition": "the mayor is a lizard"}, by="op"
    )
    pattern = applied.result["pattern"]
    # 5 tokens vs 5 + "secretly": Jaccard 5/6 ≥ 0.7 → refused, recorded as its own entry
    refused = h.do("belief.create", {"proposition": "The mayor is secretly a lizard"})
    assert h.log[-1].op == "belief.refused"
    assert refused.result["refused"]["pattern"] == pattern and refused.result["created"] == []
    assert h.state.refusals[-1]["proposition"] == "The mayor is secretly a lizard"
    assert not h.state.beliefs
    # Flipped polarity or little overlap is not the same proposition.
    h.create("the mayor is not a lizard")
    h.create("the mayor likes lizards at the zoo")
    assert len(h.state.beliefs) == 2


def test_inaccurate_observation_retracts_what_cites_it():
    h = Harness()
    a = h.create("the gate was open", row(0.8, "actor:ann", root_kind="observation", root_ids=["o1"]))
    c = h.create("someone entered", row(0.5, "actor:bo", root_kind="observation", root_ids=["o1", "o2"]))
    untouched = h.create("the light was on", row(0.5, "actor:bo", root_kind="observation", root_ids=["o2"]))
    applied = h.do(
        "belief.correct", {"kind": "inaccurate", "root_kind": "observation", "root_id": "o1"}, by="op"
    )
    assert set(applied.result["beliefs"]) == {a, c}
    assert h.state.beliefs[a].confidence == 0.5 and h.state.beliefs[untouched].version == 1
    assert ("observation", "o1") in h.state.inaccurate_roots
    with pytest.raises(Conflict, match="inaccurate"):
        h.state.plan("evidence.add", {"belief": a, **row(0.5, "x", root_kind="observation", root_ids=["o1"])})


def test_same_entity_merges_subjects_and_different_entity_undoes_it():
    h = Harness()
    a = h.create("the author is in leeds", row(0.7, "actor:ann"), subject="j. smith")
    b = h.create("the author is not in leeds", row(0.6, "actor:bo"), subject="john smith")
    assert h.state.partners(a) == []  # different subjects: not compared
    merged = h.do(
        "belief.correct", {"kind": "same_entity", "subject": "j. smith", "other": "john smith"}, by="op"
    )
    assert h.state.beliefs[b].entity == "j. smith"
    assert h.state.partners(a) == [b]
    assert any(e["event"] == "contradiction_detected" for e in merged.result["events"])
    contested = h.state.beliefs[a].confidence
    split = h.do(
        "belief.correct", {"kind": "different_entity", "subject": "j. smith", "other": "john smith"}, by="op"
    )
    assert h.state.beliefs[b].entity == "john smith" and h.state.partners(a) == []
    assert any(e["event"] == "contradiction_withdrawn" for e in split.result["events"])
    # back to one family of 0.7: σ(1.5 × 0.7 × 0.6) = σ(0.63) = 0.65248946
    assert h.state.beliefs[a].confidence == pytest.approx(0.65248946)
    assert h.state.beliefs[a].confidence > contested
    with pytest.raises(Conflict, match="not merged"):
        h.state.plan(
            "belief.correct", {"kind": "different_entity", "subject": "j. smith", "other": "john smith"}
        )
