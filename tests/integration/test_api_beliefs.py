"""The belief layer over GraphQL on the embedded backend: evidence, families, breakdown, versions,
walks, pages, corrections, and bad input that writes nothing. Every scenario ends verified: the
graph equals a pure replay of the journal."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend
from tests.integration.graphql_client import data, gql, head_seq


def assert_verified(client: TestClient) -> None:
    assert data(client, "{ verify { ok projectionOk reason } }")["verify"] == {
        "ok": True, "projectionOk": True, "reason": None}


def confidence(prior: float, support: float, diversity: float, against: float = 0.0) -> float:
    """SPEC 3.4 by hand: sigmoid(logit(prior) + 1.5 × (for × diversity − against)), clamped."""
    x = math.log(prior / (1 - prior)) + 1.5 * (support * diversity - against)
    return min(0.98, max(0.02, 1 / (1 + math.exp(-x))))


WRITE = "seq op created evidence retractedEvidence refused pattern events { name detail } " \
        "changes { belief before { status confidence version } after { status confidence version } } " \
        "belief { id status confidence version pinned pinnedStatus }"
CREATE = """mutation($p: String!, $k: EpistemicKind!, $s: String, $ev: [EvidenceInput!]) {
  createBelief(proposition: $p, epistemicKind: $k, subject: $s, evidence: $ev) { %s } }""".replace("%s", WRITE)
ADD = """mutation($b: String!, $ev: EvidenceInput!) {
  addEvidence(belief: $b, evidence: $ev) { %s } }""".replace("%s", WRITE)
BELIEF = """query($id: String!) { belief(id: $id) {
  id proposition subject epistemicKind status confidence prior version pinned
  evidence { id direction weight credibility value derivation family provenanceStatus rootKind rootIds
             roots { id label } origin actor retracted retractReason assertions }
  families { id kind name actors rows liveRows contributions { direction contribution basis capped } }
  versions { version seq op by status confidence reason breakdown { for against diversity } }
  breakdown { epistemicKind prior for against supportingFamilies opposingFamilies diversity logOdds confidence
              formula notes families { family direction contribution strongest primaryRows derivedRows basis capped } }
} }"""
WALK = "id label depth via edge status summary confidence gone"


def create(client: TestClient, proposition: str, *rows: dict[str, Any], kind: str = "claim",
           subject: str | None = None) -> dict[str, Any]:
    return data(client, CREATE, {"p": proposition, "k": kind, "s": subject, "ev": list(rows)})["createBelief"]


def belief(client: TestClient, belief_id: str) -> dict[str, Any]:
    return data(client, BELIEF, {"id": belief_id})["belief"]


def observe(client: TestClient, observer: str, tick: int, subject: str) -> str:
    row = data(client, """mutation($o: String!, $t: Long!, $s: String!) {
      observe(observer: $o, tick: $t, kind: "seen", subject: $s) { rows { id } } }""",
               {"o": observer, "t": tick, "s": subject})
    return row["observe"]["rows"][0]["id"]


def test_a_belief_resting_on_an_observation_falls_when_the_observation_is_marked_inaccurate(
        client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    obs = observe(client, "cam", 5, "door")
    made = create(client, "the door is open",
                  {"weight": 0.9, "family": "camera:cam", "rootKind": "observation", "rootIds": [obs]},
                  kind="observation")
    belief_id = made["belief"]["id"]
    before = confidence(0.6, 0.9, 0.6)
    assert made["belief"]["confidence"] == pytest.approx(before, abs=1e-12)
    assert made["belief"]["status"] == "likely"  # 0.7 ≤ 0.7713 < 0.85
    assert made["created"] == [belief_id] and [e["name"] for e in made["events"]] == ["belief_created"]
    up = data(client, "query($id: String!) { beliefUpstream(id: $id) { %s } }".replace("%s", WALK), {"id": belief_id})
    assert [(s["label"], s["depth"], s["edge"], s["id"]) for s in up["beliefUpstream"]] == [
        ("Evidence", 1, "BEARS_ON", made["evidence"][0]),
        ("Observation", 2, "ROOTED_IN", obs),
    ]
    down = data(client, "query($id: String!) { beliefDependents(id: $id) { %s } }".replace("%s", WALK), {"id": obs})
    assert [(s["label"], s["depth"], s["via"], s["id"]) for s in down["beliefDependents"]] == [
        ("Evidence", 1, obs, made["evidence"][0]),
        ("Belief", 2, made["evidence"][0], belief_id),
    ]

    marked = data(client, """mutation($o: String!) { markInaccurate(rootId: $o, reason: "lens fogged") {
      %s } }""".replace("%s", WRITE), {"o": obs})["markInaccurate"]
    assert marked["retractedEvidence"] == made["evidence"]
    assert marked["changes"] == [{
        "belief": belief_id,
        "before": {"status": "likely", "confidence": pytest.approx(before, abs=1e-12), "version": 1},
        "after": {"status": "tentative", "confidence": pytest.approx(0.6, abs=1e-12), "version": 2},
    }]
    events = [(e["name"], json.loads(e["detail"])) for e in marked["events"]]
    assert events == [("root_inaccurate", {"root_kind": "observation", "root_id": obs}),
                      ("belief_updated", {"belief": belief_id})]

    now = belief(client, belief_id)
    assert (now["status"], now["confidence"], now["version"]) == ("tentative", pytest.approx(0.6), 2)
    assert now["evidence"][0]["retracted"] is True
    assert now["evidence"][0]["retractReason"] == f"observation {obs} marked inaccurate"
    assert now["versions"][-1]["reason"] == f"evidence {made['evidence'][0]} retracted"
    assert now["versions"][-1]["op"] == "belief.correct" and now["versions"][-1]["by"] == "anonymous"
    assert now["breakdown"]["notes"] == ["no live evidence: the prior stands"]
    assert now["families"][0]["rows"] == 1 and now["families"][0]["liveRows"] == 0
    observation = data(client, "query($id: String!) { observation(id: $id) { inaccurate inaccurateReason } }",
                       {"id": obs})["observation"]
    assert observation == {"inaccurate": True, "inaccurateReason": "lens fogged"}
    assert data(client, "query($id: String!) { beliefDependents(id: $id) { id } }", {"id": obs}) == {
        "beliefDependents": []}
    # An observation marked inaccurate is not cited again.
    refused = gql(client, ADD, {"b": belief_id, "ev": {"weight": 0.5, "family": "x", "rootKind": "observation",
                                                       "rootIds": [obs]}})
    assert refused["errors"][0]["extensions"] == {"code": "CONFLICT", "field": "root_ids"}
    assert_verified(client)


def test_breakdown_counts_independent_families_not_rows(client: TestClient) -> None:
    made = create(client, "the bridge is closed",
                  {"weight": 0.8, "family": "radio"},
                  {"weight": 0.6, "family": "radio"},
                  {"weight": 0.9, "family": "radio", "derivation": "inference"},
                  {"weight": 0.5, "credibility": 0.8, "actor": "dan"},
                  {"weight": 0.3, "direction": "against", "family": "map", "derivation": "retrieval"})
    b = belief(client, made["belief"]["id"])
    radio = 0.8 + 0.25 * 0.6  # strongest primary + a quarter of the other; the derived row adds nothing
    support, diversity = radio + 0.4, 0.6 + 0.4 * 0.5
    assert b["breakdown"]["for"] == pytest.approx(support)
    assert b["breakdown"]["against"] == pytest.approx(0.3)
    assert b["breakdown"]["diversity"] == pytest.approx(diversity)
    assert (b["breakdown"]["supportingFamilies"], b["breakdown"]["opposingFamilies"]) == (2, 1)
    assert b["confidence"] == pytest.approx(confidence(0.5, support, diversity, 0.3))
    assert b["breakdown"]["logOdds"] == pytest.approx(1.5 * (support * diversity - 0.3))
    assert b["breakdown"]["formula"].startswith("sigmoid(logit(0.5) + 1.5 × (1.35 × 0.8 − 0.3))")
    assert "radio (for): 1 derived row(s) add nothing beside primary rows" in b["breakdown"]["notes"]
    assert "map (against): no primary row, its strongest derived row counts alone" in b["breakdown"]["notes"]
    families = {f["id"]: f for f in b["families"]}
    assert sorted(families) == ["actor:dan", "map", "radio"]
    assert families["actor:dan"]["actors"] == ["dan"] and families["actor:dan"]["kind"] == "actor"
    assert families["radio"]["rows"] == 3 and families["radio"]["contributions"][0]["contribution"] == pytest.approx(
        radio)
    assert families["map"]["contributions"][0]["basis"] == "derived"
    assert [e["value"] for e in b["evidence"]] == pytest.approx([0.8, 0.6, 0.9, 0.4, 0.3])
    assert b["versions"][0]["breakdown"]["for"] == pytest.approx(support)
    assert_verified(client)


def test_evidence_added_and_retracted_appends_versions(client: TestClient) -> None:
    made = create(client, "the pump is running", {"weight": 0.5, "family": "sensor"})
    b_id = made["belief"]["id"]
    added = data(client, ADD, {"b": b_id, "ev": {"weight": 0.7, "family": "tech", "derivation": "operator"}})
    assert added["addEvidence"]["belief"]["version"] == 2
    evidence_id = added["addEvidence"]["evidence"][0]
    gone = data(client, """mutation($e: String!) { retractEvidence(evidence: $e, reason: "wrong pump") {
      %s } }""".replace("%s", WRITE), {"e": evidence_id})["retractEvidence"]
    assert gone["retractedEvidence"] == [evidence_id] and gone["belief"]["id"] == b_id
    b = belief(client, b_id)
    assert [v["version"] for v in b["versions"]] == [1, 2, 3]
    assert [v["op"] for v in b["versions"]] == ["belief.create", "evidence.add", "evidence.retract"]
    assert b["confidence"] == pytest.approx(confidence(0.5, 0.5, 0.6))
    assert b["versions"][1]["confidence"] == pytest.approx(confidence(0.5, 1.2, 0.8))
    assert_verified(client)


def test_upstream_follows_beliefs_resting_on_beliefs_and_items(client: TestClient) -> None:
    base = create(client, "the river is high", {"weight": 0.9, "family": "gauge"})["belief"]["id"]
    derived = create(client, "the ford is unsafe",
                     {"weight": 0.8, "family": "belief:" + base, "derivation": "inference", "rootKind": "belief",
                      "rootIds": [base]})
    up = data(client, "query($id: String!) { beliefUpstream(id: $id) { %s } }".replace("%s", WALK),
              {"id": derived["belief"]["id"]})["beliefUpstream"]
    assert [(s["label"], s["depth"], s["edge"]) for s in up] == [
        ("Evidence", 1, "BEARS_ON"), ("Belief", 2, "ROOTED_IN"), ("Evidence", 3, "BEARS_ON")]
    assert up[1]["id"] == base and up[1]["summary"] == "the river is high"
    limited = data(client, "query($id: String!) { beliefUpstream(id: $id, maxDepth: 1) { id } }",
                   {"id": derived["belief"]["id"]})["beliefUpstream"]
    assert len(limited) == 1
    down = data(client, "query($id: String!) { beliefDependents(id: $id) { label id } }", {"id": base})
    assert down["beliefDependents"][-1] == {"label": "Belief", "id": derived["belief"]["id"]}
    # Rejecting the base retracts what rests on it.
    data(client, 'mutation($b: String!) { correctBelief(belief: $b, reason: "gauge broken") { seq } }',
         {"b": base})
    after = belief(client, derived["belief"]["id"])
    assert after["evidence"][0]["retracted"] is True and after["confidence"] == pytest.approx(0.5)
    assert_verified(client)


def test_beliefs_filter_sort_and_page(client: TestClient) -> None:
    weights = [0.1, 0.9, 0.5, 0.3, 0.7]
    for i, w in enumerate(weights):
        create(client, f"lamp {i} is lit", {"weight": w, "family": "eye"}, subject="lamps" if i % 2 else None)
    create(client, "a lamp may be faulty", kind="hypothesis")

    def page(order: str, after: str | None, flt: dict[str, Any] | None = None) -> dict[str, Any]:
        return data(client, """query($o: BeliefOrder!, $a: String, $f: BeliefFilter) {
          beliefs(orderBy: $o, first: 2, after: $a, filter: $f) {
            edges { cursor node { proposition confidence status } } pageInfo { hasNextPage endCursor } totalCount }
        }""", {"o": order, "a": after, "f": flt})["beliefs"]

    for order, expected in (("CONFIDENCE_DESC", sorted(weights, reverse=True)), ("CONFIDENCE_ASC", sorted(weights))):
        seen, after = [], None
        while True:
            got = page(order, after, {"kind": "claim"})
            assert got["totalCount"] == 5
            seen += [e["node"]["confidence"] for e in got["edges"]]
            if not got["pageInfo"]["hasNextPage"]:
                break
            after = got["pageInfo"]["endCursor"]
        assert seen == pytest.approx([confidence(0.5, w, 0.6) for w in expected])
    subject = page("CONFIDENCE_DESC", None, {"subject": "lamps"})
    assert subject["totalCount"] == 2
    assert [e["node"]["proposition"] for e in subject["edges"]] == ["lamp 1 is lit", "lamp 3 is lit"]
    hypotheses = page("CONFIDENCE_ASC", None, {"status": "hypothesis"})
    assert [e["node"]["proposition"] for e in hypotheses["edges"]] == ["a lamp may be faulty"]
    too_many = gql(client, "{ beliefs(first: 501) { totalCount } }")["errors"][0]
    assert too_many["message"] == "first must be between 1 and 500, got 501"
    assert too_many["extensions"] == {"code": "BAD_USER_INPUT", "field": "first"}
    assert_verified(client)


def test_operator_corrections(client: TestClient) -> None:
    wrong = create(client, "the alarm is false", {"weight": 0.9, "family": "panel"})["belief"]["id"]
    correct = 'mutation($b: String!) { correctBelief(belief: $b) { %s } }'.replace("%s", WRITE)
    corrected = data(client, correct, {"b": wrong})["correctBelief"]
    assert corrected["belief"]["status"] == "rejected" and corrected["belief"]["pinnedStatus"] == "rejected"
    assert "belief_retracted" in [e["name"] for e in corrected["events"]]
    assert len(belief(client, wrong)["versions"]) == 2  # history kept

    dni = data(client, 'mutation { doNotInfer(proposition: "the moon is cheese") { pattern } }')
    assert dni["doNotInfer"]["pattern"]
    refused = create(client, "the moon is cheese")
    assert refused["refused"] is True and refused["op"] == "belief.refused" and refused["belief"] is None

    pinned = data(client, 'mutation($b: String!) { pinBelief(belief: $b, status: accepted) { %s } }'
                 .replace("%s", WRITE), {"b": create(client, "the gate is shut")["belief"]["id"]})["pinBelief"]
    assert (pinned["belief"]["status"], pinned["belief"]["pinned"]) == ("accepted", True)

    # Same entity: beliefs about two subjects become comparable, and so contradict.
    a = create(client, "the truck is red", {"weight": 0.8, "family": "ann"}, subject="truck-1")["belief"]["id"]
    b = create(client, "the truck is not red", {"weight": 0.8, "family": "bob"}, subject="lorry-7")["belief"]["id"]
    merged = data(client, """mutation { sameEntity(subject: "truck-1", other: "lorry-7") {
      events { name } changes { belief } } }""")["sameEntity"]
    assert "contradiction_detected" in [e["name"] for e in merged["events"]]
    assert {c["belief"] for c in merged["changes"]} == {a, b}
    assert any(e["family"] == f"belief:{b}" for e in belief(client, a)["evidence"])
    split = data(client, """mutation { differentEntity(subject: "truck-1", other: "lorry-7") {
      events { name } } }""")["differentEntity"]
    assert "contradiction_withdrawn" in [e["name"] for e in split["events"]]
    assert belief(client, a)["confidence"] == pytest.approx(confidence(0.5, 0.8, 0.6))

    proposed = data(client, """mutation($a: String!, $b: String!) { proposeContradiction(a: $a, b: $b) {
      events { name } } }""", {"a": a, "b": b})["proposeContradiction"]
    assert proposed["events"][0]["name"] == "contradiction_detected"
    assert_verified(client)


def test_association_cues_must_name_observations_that_exist(client: TestClient) -> None:
    # Regression: unknown cue ids became bare Observation nodes in the graph.
    before = head_seq(client)
    cues = [{"id": "obs-a", "at": 1000, "summary": "x"}, {"id": "obs-b", "at": 2000, "summary": "y"}]
    error = gql(client, 'mutation($o: [AssociationCueInput!]!) { associate(observations: $o, windowMs: 5000) '
                        '{ seq } }', {"o": cues})["errors"][0]
    assert error["extensions"] == {"code": "NOT_FOUND", "field": "observations[0].id"}
    assert head_seq(client) == before


def test_evidence_roots_must_exist(client: TestClient) -> None:
    # Regression: evidence rooted in an unknown item or observation left a bare node in the graph.
    before = head_seq(client)
    for kind in ("item", "observation"):
        error = gql(client, 'mutation($e: [EvidenceInput!]) { createBelief(proposition: "p", evidence: $e) '
                            '{ seq } }', {"e": [{"weight": 0.5, "family": "f", "rootKind": kind,
                                                 "rootIds": ["ghost"]}]})["errors"][0]
        assert error["extensions"] == {"code": "NOT_FOUND", "field": "evidence[0].root_ids"}
        assert f"no {kind} 'ghost'" in error["message"]
    assert head_seq(client) == before


def test_associate_proposes_a_hypothesis_with_alternatives(client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    a, b, c = (observe(client, "cam", tick, subject) for tick, subject in ((1, "lights"), (2, "server"), (3, "logs")))
    cues = [{"id": a, "at": 1000, "summary": "the lights flickered"},
            {"id": b, "at": 2000, "summary": "the server rebooted"},
            {"id": c, "at": 2500, "summary": "can you check the logs", "question": True}]
    made = data(client, """mutation($o: [AssociationCueInput!]!) { associate(observations: $o, windowMs: 5000) {
                   created belief { proposition epistemicKind status } events { name } } }""",
                {"o": cues})["associate"]
    assert made["belief"]["proposition"] == "the lights flickered may have caused: the server rebooted"
    assert made["belief"]["epistemicKind"] == "hypothesis" and len(made["created"]) == 3
    assert "hypothesis_proposed" in [e["name"] for e in made["events"]]
    assert_verified(client)


def test_real_timestamps_are_read_and_accepted(client: TestClient) -> None:
    # Regression: epoch milliseconds were typed Int (32-bit): `versions { at }` nulled the whole
    # response, and associate refused every real timestamp.
    import time

    now = time.time_ns() // 1_000_000
    made = create(client, "the kiln is hot", {"weight": 0.6, "family": "potter"})
    versions = data(client, "query($b: String!) { belief(id: $b) { versions { at } } }",
                    {"b": made["belief"]["id"]})["belief"]["versions"]
    assert versions and all(abs(v["at"] - now) < 600_000 for v in versions)
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    a, b = (observe(client, "cam", tick, subject) for tick, subject in ((1, "lights"), (2, "server")))
    cues = [{"id": a, "at": now, "summary": "the lights flickered"},
            {"id": b, "at": now + 1_000, "summary": "the server rebooted"}]
    made = data(client, """mutation($o: [AssociationCueInput!]!, $w: Long!) { associate(observations: $o,
      windowMs: $w) { belief { proposition } } }""", {"o": cues, "w": 3 * 2**31})["associate"]
    assert made["belief"]["proposition"] == "the lights flickered may have caused: the server rebooted"
    refused = gql(client, """mutation($o: [AssociationCueInput!]!, $w: Long!) { associate(observations: $o,
      windowMs: $w) { created } }""", {"o": cues, "w": 2**64})["errors"][0]
    assert "64 bits" in refused["message"]
    assert_verified(client)


BAD = [
    (CREATE, {"p": "x", "k": "claim", "ev": [{"weight": 1.5}]}, "createBelief",
     "evidence[0].weight must be within [0, 1], got 1.5", "BAD_USER_INPUT", "evidence[0].weight"),
    (CREATE, {"p": "x", "k": "claim", "ev": [{"weight": 0.5, "credibility": -0.1}]}, "createBelief",
     "evidence[0].credibility must be within [0, 1], got -0.1", "BAD_USER_INPUT", "evidence[0].credibility"),
    (CREATE, {"p": " ", "k": "claim"}, "createBelief",
     "proposition must be a non-empty string", "BAD_USER_INPUT", "proposition"),
    (CREATE, {"p": "the sky is green", "k": "claim"}, "createBelief",
     "already held as belief", "CONFLICT", "proposition"),
    (ADD, {"b": "b999.1", "ev": {"weight": 0.5, "family": "f"}}, "addEvidence",
     "belief: no belief 'b999.1'", "NOT_FOUND", "belief"),
    (ADD, {"b": "b1.1", "ev": {"weight": 2.0, "family": "f"}}, "addEvidence",
     "weight must be within [0, 1], got 2.0", "BAD_USER_INPUT", "weight"),
    (ADD, {"b": "b1.1", "ev": {"weight": 0.5}}, "addEvidence",
     "family must be a non-empty string", "BAD_USER_INPUT", "family"),
    ('mutation { retractEvidence(evidence: "e404.1") { seq } }', None, "retractEvidence",
     "evidence: no evidence row 'e404.1'", "NOT_FOUND", "evidence"),
    ('mutation { correctBelief(belief: "b404.1") { seq } }', None, "correctBelief",
     "belief: no belief 'b404.1'", "NOT_FOUND", "belief"),
    ('mutation { doNotInfer { seq } }', None, "doNotInfer",
     "give exactly one of belief and proposition", "BAD_USER_INPUT", "proposition"),
    ('mutation { markInaccurate(rootId: "obs-404-0") { seq } }', None, "markInaccurate",
     "root_id: no observation 'obs-404-0'", "NOT_FOUND", "root_id"),
    ('mutation { sameEntity(subject: "a", other: "a") { seq } }', None, "sameEntity",
     "other: must name a different subject", "BAD_USER_INPUT", "other"),
    ('mutation { differentEntity(subject: "a", other: "b") { seq } }', None, "differentEntity",
     "'a' and 'b' are not merged", "CONFLICT", "other"),
    ('mutation { associate(observations: [{id: "o", at: 1, summary: "s"}], windowMs: 10) { seq } }', None,
     "associate", "observations must be a list of at least two observations", "BAD_USER_INPUT", "observations"),
    ('mutation { proposeContradiction(a: "b1.1", b: "b1.1") { seq } }', None, "proposeContradiction",
     "b: a belief cannot contradict itself", "BAD_USER_INPUT", "b"),
    ('{ belief(id: "b404.1") { id } }', None, "belief", "id: no belief 'b404.1'", "NOT_FOUND", "id"),
    ('{ beliefUpstream(id: "b1.1", maxDepth: 0) { id } }', None, "beliefUpstream",
     "maxDepth must be between 1 and 100, got 0", "BAD_USER_INPUT", "maxDepth"),
    ('{ beliefs(after: "bm90LWEtY3Vyc29y") { totalCount } }', None, "beliefs",
     "is not a belief cursor", "BAD_USER_INPUT", "after"),
]


@pytest.mark.parametrize(("query", "variables", "field_name", "message", "code", "field"), BAD,
                         ids=[f"{b[2]}:{b[5]}" for b in BAD])
def test_bad_input_is_a_clear_error_and_writes_nothing(client: TestClient, query: str,
                                                       variables: dict[str, Any] | None, field_name: str,
                                                       message: str, code: str, field: str) -> None:
    assert create(client, "the sky is green", {"weight": 0.5, "family": "f"})["belief"]["id"] == "b1.1"
    before = data(client, "{ head { seq hash } }")["head"]
    body = gql(client, query, variables)
    assert body["data"] is None or body["data"].get(field_name) is None
    error = body["errors"][0]
    assert message in error["message"]
    assert error["extensions"] == {"code": code, "field": field}
    assert data(client, "{ head { seq hash } }")["head"] == before
    assert_verified(client)


def test_the_projection_survives_a_restart_and_equals_the_replay(backend: Backend) -> None:
    settings = backend.settings()
    with TestClient(create_app(settings)) as first:
        made = create(first, "the well is dry", {"weight": 0.6, "family": "farmer"})
        data(first, ADD, {"b": made["belief"]["id"], "ev": {"weight": 0.4, "family": "drone"}})
        written = belief(first, made["belief"]["id"])
    with TestClient(create_app(settings)) as second:
        assert belief(second, made["belief"]["id"]) == written
        assert_verified(second)


def test_a_belief_resting_on_an_item_that_falls_with_another_is_exact(client: TestClient) -> None:
    # Regression (issue 15): fact a; b derived from a; a belief on b; retractItem(a): the store's belief
    # fingerprint differed from rebuild(skip: [a]); and a row on a retracted item was accepted live.
    add = 'mutation($i: ItemInput!) { addItem(item: $i) { id status } }'
    a = data(client, add, {"i": {"kind": "fact", "body": {"s": "a", "r": "is", "o": 1}, "source": "person"}})
    b = data(client, add, {"i": {"kind": "fact", "body": {"s": "b", "r": "is", "o": 1}, "source": "person",
                                 "derivedFrom": [a["addItem"]["id"]]}})
    a_id, b_id = a["addItem"]["id"], b["addItem"]["id"]
    create(client, "b holds", {"weight": 0.9, "family": "ann", "rootKind": "item", "rootIds": [b_id]})
    data(client, 'mutation($a: String!) { retractItem(id: $a, why: "wrong") { changes { id } } }', {"a": a_id})
    prints = data(client, "query($a: String!) { fingerprint { store beliefs } rebuild(skip: [$a]) { store beliefs } }",
                  {"a": a_id})
    assert prints["fingerprint"] == prints["rebuild"]
    late = gql(client, CREATE, {"p": "b still holds", "k": "claim",
                                "ev": [{"weight": 0.5, "family": "bob", "rootKind": "item", "rootIds": [b_id]}]})
    assert late["errors"][0]["extensions"] == {"code": "CONFLICT", "field": "evidence[0].root_ids"}
    assert "is retracted" in late["errors"][0]["message"]
    assert_verified(client)


def test_pin_belief_without_a_status_frees_the_pin(client: TestClient) -> None:
    # Regression (issue 13): leaving out `status`, which the schema makes optional, was an internal error.
    made = create(client, "the valve is open")["belief"]["id"]
    data(client, 'mutation($b: String!) { pinBelief(belief: $b, status: accepted) { seq } }', {"b": made})
    freed = data(client, 'mutation($b: String!) { pinBelief(belief: $b) { %s } }'.replace("%s", WRITE),
                 {"b": made})["pinBelief"]
    assert freed["belief"]["pinned"] is False
    assert_verified(client)
