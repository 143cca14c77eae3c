"""BeliefState: planning refuses bad input without changing anything; apply versions every change
and projects the graph; the fingerprint is readable off the Belief nodes."""

from __future__ import annotations

import json

import pytest

from graph_service.beliefs import BELIEF_FINGERPRINT_FIELDS, fingerprint_of
from graph_service.errors import Conflict, NotFound, UserError

from .harness import Harness, row


def test_create_projects_belief_version_evidence_and_family():
    h = Harness()
    applied = h.do(
        "belief.create",
        {
            "proposition": "the bridge is closed",
            "subject": "bridge",
            "epistemic_kind": "claim",
            "evidence": [
                {
                    "weight": 0.8,
                    "credibility": 0.5,
                    "actor": "bob",
                    "root_kind": "observation",
                    "root_ids": ["obs-1"],
                }
            ],
        },
    )
    belief_id = applied.result["belief"]
    nodes = {(n.label, n.id): n.props for n in applied.projection.nodes}
    belief = nodes[("Belief", belief_id)]
    # 0.8 × 0.5 = 0.4; σ(1.5 × 0.4 × 0.6) = σ(0.36) = 0.58904043
    assert belief["confidence"] == pytest.approx(0.5890404340586651)
    assert belief["status"] == "tentative" and belief["version"] == 1 and belief["pinned"] is False
    assert belief["prior"] == 0.5 and belief["epistemic_kind"] == "claim" and belief["subject"] == "bridge"
    version = nodes[("BeliefVersion", f"{belief_id}/v1")]
    assert version["seq"] == 1 and version["reason"] == "created; evidence added"
    assert json.loads(version["breakdown"])["for"] == pytest.approx(0.4)
    [evidence_id] = applied.result["evidence"]
    evidence = nodes[("Evidence", evidence_id)]
    assert evidence["family"] == "actor:bob" and evidence["derivation"] == "direct"
    assert evidence["retracted"] is False and evidence["root_kind"] == "observation"
    assert nodes[("Family", "actor:bob")] == {"id": "actor:bob", "kind": "actor", "name": "bob"}
    edges = {(e.rel, e.src, e.dst) for e in applied.projection.edges}
    assert {
        ("BEARS_ON", evidence_id, belief_id),
        ("FROM", evidence_id, "actor:bob"),
        ("REPRESENTS", "actor:bob", "bob"),
        ("ROOTED_IN", evidence_id, "obs-1"),
        ("VERSION_OF", f"{belief_id}/v1", belief_id),
    } <= edges


def test_every_change_appends_a_version_and_history_is_kept():
    h = Harness()
    b = h.create("the ferry runs on sundays", row(0.5, "actor:ann"))
    added = h.do("evidence.add", {"belief": b, **row(0.5, "actor:cy")})
    retracted = h.do("evidence.retract", {"evidence": added.result["evidence"][0], "reason": "misheard"})
    versions = h.versions(b)
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["seq"] for v in versions] == [1, 2, 3]
    # two families of 0.5 → σ(1.2) = 0.76852478; back to one → σ(0.45) = 0.61063923
    assert versions[1]["confidence"] == pytest.approx(0.7685247834990178)
    assert versions[2]["confidence"] == pytest.approx(0.610639233949222)
    assert retracted.result["beliefs"][b]["before"]["version"] == 2
    evidence_node = next(n for n in retracted.projection.nodes if n.label == "Evidence")
    assert evidence_node.props["retracted"] is True and evidence_node.props["retract_reason"] == "misheard"


def test_derived_re_expressions_of_a_family_add_nothing():
    h = Harness()
    b = h.create("the depot opens at six", row(0.6, "actor:ann"))
    before = h.state.beliefs[b].confidence
    for derivation in ("consolidation", "inference", "reflection", "dream", "retrieval"):
        h.do("evidence.add", {"belief": b, **row(1.0, "actor:ann", derivation=derivation)})
    assert h.state.beliefs[b].confidence == before
    assert h.state.beliefs[b].version == 6


def summary(h: Harness):
    s = h.state
    return (
        s.fingerprint_rows(),
        sorted((r.id, r.weight, r.retracted) for r in s.rows.values()),
        {b.id: b.version for b in s.beliefs.values()},
        sorted(s.patterns),
        sorted(s.inaccurate_roots),
        len(s.refusals),
        len(h.log),
    )


BAD = [
    ("belief.create", {"proposition": "   "}, "proposition", UserError),
    ("belief.create", {"proposition": "x", "epistemic_kind": "rumour"}, "epistemic_kind", UserError),
    ("belief.create", {"proposition": "x", "evidence": [row(1.2, "a")]}, "evidence[0].weight", UserError),
    (
        "belief.create",
        {"proposition": "x", "evidence": [{**row(0.5, "a"), "credibility": -0.1}]},
        "evidence[0].credibility",
        UserError,
    ),
    (
        "belief.create",
        {"proposition": "x", "evidence": [{**row(0.5, "a"), "derivation": "gossip"}]},
        "evidence[0].derivation",
        UserError,
    ),
    ("belief.create", {"proposition": "x", "evidence": [{"weight": 0.5}]}, "evidence[0].family", UserError),
    (
        "belief.create",
        {"proposition": "x", "evidence": [{**row(0.5, "a"), "weight": float("nan")}]},
        "evidence[0].weight",
        UserError,
    ),
    (
        "belief.create",
        {"proposition": "x", "evidence": [{**row(0.5, "a"), "weight": True}]},
        "evidence[0].weight",
        UserError,
    ),
    ("evidence.add", {"belief": "b99.1", **row(0.5, "a")}, "belief", NotFound),
    ("evidence.add", {"belief": "B", **row(0.5, "a"), "direction": "sideways"}, "direction", UserError),
    (
        "evidence.add",
        {"belief": "B", **row(0.5, "a"), "root_kind": "belief", "root_ids": ["nope"]},
        "root_ids",
        NotFound,
    ),
    ("evidence.add", {"belief": "B", **row(0.5, "a"), "root_ids": ["o1"]}, "root_kind", UserError),
    (
        "evidence.add",
        {"belief": "B", "weight": 0.5, "provenance_status": "legacy_unknown"},
        "source",
        UserError,
    ),
    ("evidence.retract", {"evidence": "e9.9"}, "evidence", NotFound),
    ("belief.correct", {"kind": "forget", "belief": "B"}, "kind", UserError),
    ("belief.pin", {"belief": "B", "status": "superseded"}, "status", UserError),
    ("belief.associate", {"window_ms": 0, "observations": []}, "window_ms", UserError),
]


@pytest.mark.parametrize(("op", "payload", "field", "error"), BAD, ids=[f"{b[0]}:{b[2]}" for b in BAD])
def test_bad_input_names_the_field_and_changes_nothing(op, payload, field, error):
    h = Harness()
    b = h.create("the lift works", row(0.5, "actor:ann"))
    payload = json.loads(json.dumps(payload).replace('"B"', json.dumps(b)))
    before = summary(h)
    with pytest.raises(error) as raised:
        h.state.plan(op, payload)
    assert raised.value.field == field
    assert field.split(".")[-1] in str(raised.value)
    assert summary(h) == before
    assert h.state.fingerprint_rows() == [(b, "tentative", round(h.state.beliefs[b].confidence, 9))]
    assert len(h.state.rows) == 1 and h.state.beliefs[b].version == 1


def test_duplicate_proposition_is_a_conflict_naming_the_belief():
    h = Harness()
    b = h.create("The  lift works")
    with pytest.raises(Conflict, match=b):
        h.state.plan("belief.create", {"proposition": "the lift works"})


def test_legacy_rows_take_their_source_as_family():
    h = Harness()
    b = h.create("the shop sells maps")
    applied = h.do(
        "evidence.add", {"belief": b, "weight": 0.5, "provenance_status": "legacy_unknown", "source": "crm"}
    )
    evidence = h.state.rows[applied.result["evidence"][0]]
    assert evidence.family == "crm" and evidence.root_ids == ()
    with pytest.raises(UserError, match="ancestry"):
        h.state.plan(
            "evidence.add",
            {
                "belief": b,
                "weight": 0.5,
                "provenance_status": "legacy_unknown",
                "source": "crm",
                "root_kind": "item",
                "root_ids": ["i1"],
            },
        )


def test_supersede_marks_the_old_belief():
    h = Harness()
    old = h.create("the museum opens at nine", row(0.8, "actor:ann"))
    new = h.create("the museum opens at ten", row(0.8, "actor:ann"), supersedes=old)
    assert h.state.beliefs[old].status == "superseded" and h.state.beliefs[old].superseded_by == new
    with pytest.raises(Conflict, match="superseded"):
        h.state.plan("evidence.add", {"belief": old, **row(0.5, "x")})


def test_pin_and_unpin():
    h = Harness()
    b = h.create("the pier is safe", row(0.5, "actor:ann"))
    h.do("belief.pin", {"belief": b, "status": "accepted"}, by="op")
    assert h.state.beliefs[b].status == "accepted"
    with pytest.raises(Conflict):
        h.state.plan("belief.pin", {"belief": b, "status": "accepted"})
    h.do("belief.pin", {"belief": b, "status": None}, by="op")
    assert h.state.beliefs[b].status == "tentative" and h.state.beliefs[b].version == 3


def test_fingerprint_from_node_properties_matches_state():
    h = Harness()
    h.create("the road is icy", row(0.7, "actor:ann"))
    h.create("the road is not icy", row(0.4, "sensor:t1"))
    latest: dict[str, dict] = {}
    for applied in h.applied:
        for node in applied.projection.nodes:
            if node.label == "Belief":
                latest[node.id] = {k: node.props[k] for k in BELIEF_FINGERPRINT_FIELDS}
    assert fingerprint_of(latest.values()) == fingerprint_of(h.state.fingerprint_rows())
    assert len(fingerprint_of([])) == 64
