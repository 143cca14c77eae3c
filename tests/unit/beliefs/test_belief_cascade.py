"""Roots going away: retracted items, rejected beliefs; every affected belief gets one version."""

from __future__ import annotations

import math

import pytest

from .harness import Harness, row


def test_item_retraction_retracts_rows_and_versions_only_what_rested_on_it():
    h = Harness()
    on_item = [
        h.create(f"the valve {n} is shut", row(0.8, f"actor:{n}", root_kind="item", root_ids=["i1"]))
        for n in range(5)
    ]
    elsewhere = h.create("the valve 9 is shut", row(0.8, "actor:9", root_kind="item", root_ids=["i2"]))
    applied = h.items_retracted("i1")
    assert set(applied.result["beliefs"]) == set(on_item)
    assert len(applied.result["retracted_evidence"]) == 5
    for b in on_item:
        assert h.state.beliefs[b].confidence == 0.5 and h.state.beliefs[b].version == 2
        assert h.versions(b)[-1]["reason"].startswith("evidence")
    assert h.state.beliefs[elsewhere].version == 1
    labels = {n.label for n in applied.projection.nodes}
    assert labels == {"Belief", "BeliefVersion", "Evidence", "Tally"}
    # Each belief's one value now counts no live row (its Tally node, which a write reads in place of the rows).
    tallies = [n for n in applied.projection.nodes if n.label == "Tally"]
    assert sorted(n.id.split("/")[0] for n in tallies) == sorted(on_item)
    assert all(n.props["rows"] == 0 for n in tallies)


def test_a_belief_rejected_by_the_cascade_takes_down_what_rests_on_it():
    h = Harness()
    # hypothesis (prior 0.25): for 1.0 (item i1), against 0.6
    # → x = ln(1/3) + 1.5 × (1.0 × 0.6 − 0.6) = −1.0986 → 0.25
    a = h.create(
        "the leak is in the roof",
        row(1.0, "actor:ann", root_kind="item", root_ids=["i1"]),
        row(0.6, "actor:bo", direction="against"),
        epistemic_kind="hypothesis",
    )
    assert h.state.beliefs[a].status == "contested"
    b = h.create("the attic needs repair", row(0.9, "actor:cy", root_kind="belief", root_ids=[a]))
    c = h.create("the tiles are old", row(0.9, "actor:cy"))
    applied = h.items_retracted("i1")
    # without i1: x = −1.0986 − 1.5 × 0.6 = −1.9986; σ = 0.11940 < 0.15 → rejected
    assert h.state.beliefs[a].confidence == pytest.approx(1 / (1 + math.exp(1.0986123 + 0.9)))
    assert h.state.beliefs[a].status == "rejected"
    assert h.state.beliefs[b].confidence == 0.5
    assert set(applied.result["beliefs"]) == {a, b}
    assert h.state.beliefs[c].version == 1
    assert [r.retract_reason for r in h.state.evidence_of(b)] == [f"rests on rejected belief {a}"]


def test_roots_gone_twice_changes_nothing_more():
    h = Harness()
    b = h.create("the hall is booked", row(0.8, "actor:ann", root_kind="item", root_ids=["i1"]))
    h.items_retracted("i1")
    again = h.items_retracted("i1")
    assert again.result["beliefs"] == {} and again.projection.nodes == []
    assert h.state.beliefs[b].version == 2


def test_a_retracted_item_may_be_cited_again_but_an_inaccurate_observation_may_not():
    h = Harness()
    b = h.create("the ramp is steep", row(0.8, "actor:ann", root_kind="item", root_ids=["i1"]))
    h.items_retracted("i1")
    h.do("evidence.add", {"belief": b, **row(0.8, "actor:ann", root_kind="item", root_ids=["i1"])})
    # one family of 0.8 again: σ(1.5 × 0.8 × 0.6) = σ(0.72) = 0.67260702
    assert h.state.beliefs[b].confidence == pytest.approx(0.6726070170677604)
    assert h.state.beliefs[b].version == 3
