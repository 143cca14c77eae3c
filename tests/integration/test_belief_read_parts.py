"""`belief(id:)` reads only the parts of a belief its selection can need (belief_evidence_families
when nothing under it names breakdown, contributions, roots, assertions or actors): every selection,
however its fields are reached (fragments, inline fragments, aliases), answers as the full read does."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.integration.graphql_client import data, gql

# A belief with every part: rows rooted in an observation and yielded by assertions (statements), a
# family standing for an actor, a second family added by a client and a retracted row.
SAY = 'mutation($t: String!, $s: String!) { say(text: $t, speaker: $s, tick: 1) { assertions { belief } } }'
ADD = ('mutation($b: String!, $f: String!) { addEvidence(belief: $b, evidence: {weight: 0.4, family: $f}) '
       '{ evidence } }')
RETRACT = 'mutation($e: String!) { retractEvidence(evidence: $e, reason: "misread") { seq } }'

FULL = """query($b: String!) { belief(id: $b) { id status confidence version
  evidence { id direction weight family retracted createdSeq roots { id label } assertions }
  families { id kind name actors rows liveRows contributions { direction contribution basis } }
  breakdown { prior for against diversity families { family direction contribution } } } }"""



@pytest.fixture
def belief(client: TestClient) -> str:
    [said] = data(client, SAY, {"t": "Ann said that the pump is on", "s": "bob"})["say"]["assertions"]
    made = said["belief"]
    data(client, ADD, {"b": made, "f": "sensor"})
    [gone] = data(client, ADD, {"b": made, "f": "sensor"})["addEvidence"]["evidence"]
    data(client, RETRACT, {"e": gone})
    return made


def test_the_full_read_has_every_part(client: TestClient, belief: str) -> None:
    # What the selections below are compared with: none of the parts a lean read leaves out is empty.
    full = data(client, FULL, {"b": belief})["belief"]
    said = [e for e in full["evidence"] if e["family"] == "actor:ann"]
    assert said and all(e["roots"] and e["assertions"] for e in said)
    assert [f["actors"] for f in full["families"] if f["id"] == "actor:ann"] == [["ann"]]
    assert all(f["contributions"] for f in full["families"])
    assert [e["retracted"] for e in full["evidence"]].count(True) == 1
    assert {f["id"]: (f["rows"], f["liveRows"]) for f in full["families"]} == {"actor:ann": (1, 1),
                                                                                "sensor": (2, 1)}


def test_a_lean_selection_answers_as_the_full_read(client: TestClient, belief: str) -> None:
    lean = data(client, """query($b: String!) { belief(id: $b) { id status confidence version
      evidence { id direction weight family retracted createdSeq } families { id kind name rows liveRows } } }""",
                {"b": belief})["belief"]
    full = data(client, FULL, {"b": belief})["belief"]
    assert lean == {
        **{k: full[k] for k in ("id", "status", "confidence", "version")},
        "evidence": [{k: e[k] for k in ("id", "direction", "weight", "family", "retracted", "createdSeq")}
                     for e in full["evidence"]],
        "families": [{k: f[k] for k in ("id", "kind", "name", "rows", "liveRows")} for f in full["families"]],
    }


SELECTIONS = {
    "fragment on Evidence": ("fragment R on Evidence { id roots { id label } assertions } "
                             "query($b: String!) { belief(id: $b) { evidence { ...R } } }",
                             lambda f: {"evidence": [{k: e[k] for k in ("id", "roots", "assertions")}
                                                     for e in f["evidence"]]}),
    "inline fragment": ("query($b: String!) { belief(id: $b) { families { name ... on BeliefFamily { actors "
                        "contributions { direction contribution basis } } } } }",
                        lambda f: {"families": [{k: x[k] for k in ("name", "actors", "contributions")}
                                                for x in f["families"]]}),
    "aliases": ("query($b: String!) { belief(id: $b) { e: evidence { r: roots { id label } } "
                "fam: families { a: actors } } }",
                lambda f: {"e": [{"r": e["roots"]} for e in f["evidence"]],
                           "fam": [{"a": x["actors"]} for x in f["families"]]}),
    "fragment on Belief": ("fragment B on Belief { breakdown { prior for against diversity } } "
                           "query($b: String!) { belief(id: $b) { id ...B } }",
                           lambda f: {"id": f["id"], "breakdown": {k: f["breakdown"][k]
                                                                   for k in ("prior", "for", "against",
                                                                             "diversity")}}),
    "nested fragments": ("fragment C on FamilyContribution { direction contribution basis } "
                         "fragment F on BeliefFamily { contributions { ...C } } "
                         "query($b: String!) { belief(id: $b) { families { ...F } } }",
                         lambda f: {"families": [{"contributions": x["contributions"]} for x in f["families"]]}),
    "an alias of a lean field beside a full one": (
        "query($b: String!) { belief(id: $b) { lean: evidence { id } rich: evidence { id assertions } } }",
        lambda f: {"lean": [{"id": e["id"]} for e in f["evidence"]],
                   "rich": [{"id": e["id"], "assertions": e["assertions"]} for e in f["evidence"]]}),
}


@pytest.mark.parametrize("name", SELECTIONS)
def test_a_part_asked_for_however_it_is_reached_is_read(client: TestClient, belief: str, name: str) -> None:
    query, expected = SELECTIONS[name]
    full = data(client, FULL, {"b": belief})["belief"]
    assert data(client, query, {"b": belief})["belief"] == expected(full)


def test_a_missing_belief_is_not_found_whatever_is_selected(client: TestClient) -> None:
    for selection in ("id", "evidence { id } families { name }", "breakdown { prior }"):
        body = gql(client, 'query { belief(id: "b999.1") { SELECTION } }'.replace("SELECTION", selection))
        assert body["data"] == {"belief": None}
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
