"""Statements over GraphQL on the embedded backend (SPEC 3.5): the ten speech patterns end to end —
the assertion recorded, whether a belief and evidence exist, and the evidence's family, direction
and weight — plus reporting, contradiction, extra claims, wordless observers and bad input.

Weights are the interpreter's (see tests/unit/statements/test_patterns.py): 1.0 × certainty ×
(0.5 if reported) × interpretation confidence, with a clear reading at 0.95 and indirect speech at
0.95 × 0.9 = 0.855, rounded to 4 places.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.statements import lexicon as lx
from tests.integration.graphql_client import data, gql


def assert_verified(client: TestClient) -> None:
    assert data(client, "{ verify { ok projectionOk } }")["verify"] == {"ok": True, "projectionOk": True}


ASSERTION = """id index claim proposition core actor speaker stance certainty modality negated reported quoted
  hypothetical sarcasm interpretationConfidence notes factual source direction weight evidence belief"""
SAY = """mutation($text: String!, $speaker: String!, $tick: Long!, $to: String, $extra: [String!]) {
  say(text: $text, speaker: $speaker, tick: $tick, to: $to, extraClaims: $extra) {
    seq by observation { id kind text speaker tick to claims conversational inaccurate }
    assertions { %s } } }""".replace("%s", ASSERTION)
BELIEF = """query($id: String!) { belief(id: $id) { id proposition epistemicKind status confidence
  evidence { id direction weight credibility derivation family actor rootKind roots { id label } assertions }
  assertions { assertion { id actor } evidence direction weight observation text speaker tick } } }"""


def say(client: TestClient, text: str, speaker: str = "alice", tick: int = 1, **extra: Any) -> dict[str, Any]:
    return data(client, SAY, {"text": text, "speaker": speaker, "tick": tick, **extra})["say"]


def belief_count(client: TestClient) -> int:
    return data(client, "{ beliefs { totalCount } }")["beliefs"]["totalCount"]


CLEAR, INDIRECT = 0.95, 0.855

# (pattern, text, assertion fields, evidence (family, direction, weight) or None)
PATTERNS: list[tuple[str, str, dict[str, Any], tuple[str, str, float] | None]] = [
    ("plain", "The server is down.",
     {"actor": "alice", "stance": "for", "modality": "assert", "factual": True, "reported": False,
      "proposition": "the server is down", "certainty": lx.PLAIN, "interpretationConfidence": CLEAR},
     ("alice", "for", INDIRECT)),
    ("hedged", "I think the server is down.",
     {"actor": "alice", "stance": "for", "modality": "hedge", "factual": True, "certainty": 0.6,
      "proposition": "the server is down"},
     ("alice", "for", 0.57)),
    ("reported", "Bob said that the server is down.",
     {"actor": "bob", "speaker": "alice", "stance": "for", "reported": True, "quoted": False, "factual": True,
      "proposition": "the server is down", "interpretationConfidence": INDIRECT},
     ("bob", "for", 0.3847)),
    ("quoted", 'Bob said "the server is down."',
     {"actor": "bob", "speaker": "alice", "stance": "for", "reported": True, "quoted": True, "factual": True,
      "proposition": "the server is down"},
     ("bob", "for", 0.4275)),
    ("hypothetical", "Suppose the server is down.",
     {"actor": "alice", "stance": "none", "modality": "hypothetical", "hypothetical": True, "factual": False,
      "certainty": 0.0},
     None),
    ("question", "Is the server down?",
     {"stance": "none", "modality": "question", "factual": False, "proposition": "is the server down"},
     None),
    ("imperative", "Restart the server.",
     {"stance": "none", "modality": "imperative", "factual": False},
     None),
    ("doubt", "I doubt the server is down.",
     {"actor": "alice", "stance": "against", "modality": "doubt", "negated": False, "factual": True,
      "proposition": "the server is down"},
     ("alice", "against", 0.57)),
    ("negation", "The server is not down.",
     {"actor": "alice", "stance": "for", "negated": True, "factual": True, "core": "the server is down"},
     ("alice", "for", INDIRECT)),
    ("possible sarcasm", "Yeah right, the server is down.",
     {"sarcasm": True, "interpretationConfidence": lx.SARCASM, "stance": "none", "factual": False,
      "proposition": "the server is down"},
     None),
]


@pytest.mark.parametrize(("pattern", "text", "fields", "evidence"), PATTERNS, ids=[p[0] for p in PATTERNS])
def test_speech_pattern_end_to_end(client: TestClient, pattern: str, text: str, fields: dict[str, Any],
                                   evidence: tuple[str, str, float] | None) -> None:
    said = say(client, text)
    observation = said["observation"]
    assert observation == {"id": f"obs-{said['seq']}-0", "kind": "message", "text": text, "speaker": "alice",
                           "tick": 1, "to": None, "claims": 1, "conversational": evidence is None,
                           "inaccurate": False}
    [assertion] = said["assertions"]
    assert {k: assertion[k] for k in fields} == pytest.approx(fields)
    assert assertion["id"] == f"asr-{said['seq']}-0" and assertion["source"] == "message"
    assert data(client, 'query($o: String!) { assertions(observation: $o) { %s } }'.replace("%s", ASSERTION),
                {"o": observation["id"]})["assertions"] == [assertion]
    if evidence is None:
        assert (assertion["evidence"], assertion["belief"], assertion["weight"]) == (None, None, None)
        assert belief_count(client) == 0
    else:
        family, direction, weight = evidence
        assert (assertion["direction"], assertion["weight"]) == (direction, pytest.approx(weight))
        b = data(client, BELIEF, {"id": assertion["belief"]})["belief"]
        assert b["proposition"] == assertion["proposition"] and b["epistemicKind"] == "claim"
        [row] = b["evidence"]
        assert row["id"] == assertion["evidence"]
        assert (row["family"], row["actor"], row["direction"], row["derivation"]) == (
            f"actor:{family}", family, direction, "assertion")
        assert row["weight"] == pytest.approx(weight) and row["credibility"] == 1.0
        assert row["roots"] == [{"id": observation["id"], "label": "Observation"}]
        assert row["assertions"] == [assertion["id"]]
        value = weight if direction == "for" else -weight
        assert (b["confidence"] > 0.5) == (value > 0)
        assert b["assertions"] == [{"assertion": {"id": assertion["id"], "actor": family},
                                    "evidence": row["id"], "direction": direction,
                                    "weight": pytest.approx(weight), "observation": observation["id"],
                                    "text": text, "speaker": "alice", "tick": 1}]
    assert_verified(client)


def test_reported_speech_and_the_speaker_are_independent_families(client: TestClient) -> None:
    said = say(client, "The bridge is closed. Dan said that the bridge is closed.")
    first, second = said["assertions"]
    assert first["belief"] == second["belief"]
    b = data(client, BELIEF, {"id": first["belief"]})["belief"]
    assert [(e["family"], e["weight"]) for e in b["evidence"]] == [
        ("actor:alice", pytest.approx(INDIRECT)), ("actor:dan", pytest.approx(0.3847))]
    diversity = 0.6 + 0.4 * 0.5
    expected = 1 / (1 + math.exp(-1.5 * (INDIRECT + 0.3847) * diversity))
    assert b["confidence"] == pytest.approx(expected, abs=1e-4)
    # Saying it again is the same family: a quarter of the repeat, never more than 1.5 × the strongest.
    again = say(client, "The bridge is closed.", tick=2)
    assert again["assertions"][0]["belief"] == first["belief"]
    assert len(data(client, BELIEF, {"id": first["belief"]})["belief"]["evidence"]) == 3
    assert_verified(client)


def test_a_negated_statement_contradicts_the_positive_belief(client: TestClient) -> None:
    positive = say(client, "The server is down.")["assertions"][0]["belief"]
    negative = say(client, "The server is not down.", speaker="carol", tick=2)["assertions"][0]["belief"]
    assert positive != negative
    b = data(client, BELIEF, {"id": positive})["belief"]
    counter = [e for e in b["evidence"] if e["family"] == f"belief:{negative}"]
    assert len(counter) == 1 and counter[0]["direction"] == "against"
    assert counter[0]["roots"] == [{"id": negative, "label": "Belief"}]
    # Two equally weighted opposites settle at the same confidence, each against ≥ half its support.
    edges = data(client, "{ beliefs { edges { node { id status confidence } } } }")["beliefs"]["edges"]
    nodes = [e["node"] for e in edges]
    assert {n["id"]: n["status"] for n in nodes} == {positive: "contested", negative: "contested"}
    assert nodes[0]["confidence"] == pytest.approx(nodes[1]["confidence"], abs=1e-6)
    assert_verified(client)


def test_marking_a_message_inaccurate_retracts_what_it_said_and_keeps_the_assertions(client: TestClient) -> None:
    said = say(client, "The reactor is stable. Eve said that the pumps are fine.")
    obs = said["observation"]["id"]
    data(client, 'mutation($o: String!) { markInaccurate(rootId: $o) { seq } }', {"o": obs})
    for assertion in said["assertions"]:
        b = data(client, BELIEF, {"id": assertion["belief"]})["belief"]
        assert b["evidence"][0]["id"] == assertion["evidence"]
        assert b["confidence"] == pytest.approx(0.5) and b["status"] == "tentative"
    kept = data(client, 'query($o: String!) { assertions(observation: $o) { id } observation(id: $o) { inaccurate } }',
                {"o": obs})
    assert [a["id"] for a in kept["assertions"]] == [a["id"] for a in said["assertions"]]
    assert kept["observation"] == {"inaccurate": True}
    assert_verified(client)


def test_extra_claims_are_read_by_the_interpreter(client: TestClient) -> None:
    said = say(client, "The server is down. I think the database is fine.",
               extra=["the database is fine", "the cache is cold"])
    extras = [a for a in said["assertions"] if a["source"] == "extra"]
    assert [a["proposition"] for a in extras] == ["the cache is cold"]
    assert "the claim's words are not in the message" in extras[0]["notes"]
    assert extras[0]["interpretationConfidence"] < CLEAR
    assert_verified(client)


def test_a_wordless_observer_refuses_statements_before_anything_is_written(client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "browser-300", wordless: true) { id wordless } }')
    before = data(client, "{ head { seq hash } }")["head"]
    for variables, field in (({"to": "browser-300"}, "to"), ({"speaker": "browser-300"}, "speaker")):
        body = gql(client, SAY, {"text": "The server is down.", "speaker": "alice", "tick": 3, **variables})
        error = body["errors"][0]
        assert error["message"] == "browser-300 is wordless: it has no words to hear or say"
        assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert data(client, "{ head { seq hash } }")["head"] == before
    heard = say(client, "The server is down.", to="ops-desk")
    assert heard["observation"]["to"] == "ops-desk"
    assert_verified(client)


@pytest.mark.parametrize(
    ("variables", "message", "field"),
    [
        ({"text": " "}, "text must be a non-empty string", "text"),
        ({"speaker": ""}, "speaker must be a non-empty string", "speaker"),
        ({"tick": -1}, "tick must not be negative, got -1", "tick"),
        ({"extra": [""]}, "extra_claims[0] must be a non-empty string", "extra_claims[0]"),
    ],
)
def test_bad_statements_are_clear_errors_and_write_nothing(client: TestClient, variables: dict[str, Any],
                                                           message: str, field: str) -> None:
    say(client, "The server is down.")
    before = data(client, "{ head { seq hash } }")["head"]
    body = gql(client, SAY, {"text": "The server is up.", "speaker": "alice", "tick": 1, **variables})
    assert body["data"] is None
    assert body["errors"][0]["message"] == message
    assert body["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert data(client, "{ head { seq hash } }")["head"] == before
    bad_credibility = gql(client, 'mutation { say(text: "x is y.", speaker: "a", tick: 1, credibility: 0) { seq } }')
    assert bad_credibility["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": "credibility"}
    unknown = gql(client, '{ assertions(observation: "obs-404-0") { id } }')["errors"][0]
    assert unknown["extensions"] == {"code": "NOT_FOUND", "field": "observation"}
    assert data(client, "{ head { seq hash } }")["head"] == before
    assert_verified(client)


def test_statements_replay_to_the_same_beliefs_after_a_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    with TestClient(create_app(settings)) as first:
        said = say(first, "The server is down. Bob said that the server is down.")
        say(first, "The server is not down.", speaker="carol", tick=2)
        written = data(first, BELIEF, {"id": said["assertions"][0]["belief"]})["belief"]
    with TestClient(create_app(settings)) as second:
        assert data(second, BELIEF, {"id": said["assertions"][0]["belief"]})["belief"] == written
        assert_verified(second)


def test_one_person_spelt_two_ways_is_one_source(client: TestClient) -> None:
    """"Ann said that…" (relayed by bob) and Ann saying it herself are one actor and one family, so
    the belief counts one independent source for ann, not two (issue 13: 0.8157 instead of 0.7018)."""
    say = ('mutation($t: String!, $s: String!, $k: Long!) { say(text: $t, speaker: $s, tick: $k) '
           '{ assertions { actor belief } } }')
    relayed = data(client, say, {"t": "Ann said that the deploy failed", "s": "bob", "k": 1})["say"]["assertions"]
    own = data(client, say, {"t": "the deploy failed", "s": "ANN", "k": 2})["say"]["assertions"]
    assert [a["actor"] for a in relayed] == ["ann"] and [a["actor"] for a in own] == ["ann"]
    assert relayed[0]["belief"] == own[0]["belief"]
    families = data(client, 'query($b: String!) { belief(id: $b) { families { name actors rows } } }',
                    {"b": own[0]["belief"]})["belief"]["families"]
    assert [(f["name"], f["actors"], f["rows"]) for f in families] == [("ann", ["ann"], 2)]
