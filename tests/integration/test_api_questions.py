"""What to ask a person next, through the GraphQL API on the embedded backend (SPEC 3.7)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend

# Every knowledge entry these tests write is also applied on what it reads from the graph, and must agree.
pytestmark = pytest.mark.usefixtures("knowledge_reads_checked")

ADD = """mutation($i: ItemInput!) { addItem(item: $i) { id status } }"""
DECLARE = """mutation($s: String!, $t: String!, $f: String, $a: [String!], $d: [String!], $p: String, $id: String) {
  declareUnknown(situation: $s, text: $t, factor: $f, affects: $a, decisions: $d, parent: $p, id: $id) {
    id factor declaredAt answered } }"""
SCORE = "target targetKind dependents snapshots decisions materiality openedAt"
NEXT = f"""mutation($p: String, $d: UnknownInput) {{ nextQuestion(preferred: $p, declare: $d) {{
  id target targetKind text path preferred rejected asked askedAt declared seq
  score {{ {SCORE} }} ranking {{ {SCORE} }} }} }}"""
ANSWER = """mutation($q: String!, $v: JSON, $c: Boolean) { answerQuestion(question: $q, value: $v, confirmed: $c) {
  question target targetKind answer seq effect changes { id before after } added } }"""

# Who asks and who answers is who authenticated: ann declares and adds, the agent asks, bob answers.
PRINCIPALS = {"t-ann": {"principal": "ann", "role": "admin"}, "t-agent": {"principal": "agent", "role": "writer"},
              "t-bob": {"principal": "bob", "role": "operator"}}
AS = {NEXT: "t-agent", ANSWER: "t-bob"}


def open_client(backend: Backend) -> TestClient:
    tokens = backend.data_dir.parent / "tokens.json"
    tokens.write_text(json.dumps(PRINCIPALS))
    return TestClient(create_app(replace(backend.settings(), tokens_file=tokens)))


@pytest.fixture
def client(backend: Backend) -> Iterator[TestClient]:
    with open_client(backend) as c:
        yield c
        assert verified(c)  # every scenario leaves a graph equal to the journal's replay


def gql(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of a GraphQL POST as the principal the operation belongs to (ann by default)."""
    headers = {"authorization": f"Bearer {AS.get(query, 't-ann')}"}
    response = client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def data(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    body = gql(client, query, variables)
    assert "errors" not in body, body
    return body["data"]


DISPUTES = "{ disputes { edges { node { id key } } } }"


def nodes(connection: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes of a connection page (questions and unknowns became connections: issue 13 part 4)."""
    return [edge["node"] for edge in connection["edges"]]


def error(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error a refused request gets, checking it wrote nothing."""
    before = head(client)
    body = gql(client, query, variables)
    assert body["data"] is None and len(body["errors"]) == 1, body
    assert head(client) == before
    return body["errors"][0]


def head(client: TestClient) -> int:
    return data(client, "{ head { seq } }")["head"]["seq"]


def verified(client: TestClient) -> bool:
    return data(client, "{ verify { ok projectionOk } }")["verify"] == {"ok": True, "projectionOk": True}


def add(client: TestClient, s: str, r: str, o: Any, source: str = "person", **extra: Any) -> str:
    item = {"kind": "fact", "body": {"s": s, "r": r, "o": o}, "source": source, **extra}
    return data(client, ADD, {"i": item})["addItem"]["id"]


def declare(client: TestClient, situation: str, text: str, **extra: Any) -> str:
    names = {"factor": "f", "affects": "a", "decisions": "d", "parent": "p", "id": "id"}
    variables = {"s": situation, "t": text, **{names[k]: v for k, v in extra.items()}}
    return data(client, DECLARE, variables)["declareUnknown"]["id"]


def next_question(client: TestClient, preferred: str | None = None, declare: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    return data(client, NEXT, {"p": preferred, "d": declare})["nextQuestion"]


def answer(client: TestClient, question: str, value: Any = None, confirmed: bool | None = None) -> dict[str, Any]:
    return data(client, ANSWER, {"q": question, "v": value, "c": confirmed})["answerQuestion"]


def snapshot(client: TestClient, about: list[str]) -> str:
    return data(client, 'mutation($a: [String!]) { takeSnapshot(about: $a) }', {"a": about})["takeSnapshot"]["id"]


def dispute_on_the_door(client: TestClient) -> tuple[str, str, str]:
    blue, red = add(client, "door", "colour", "blue"), add(client, "door", "colour", "red")
    [dispute] = nodes(data(client, DISPUTES)["disputes"])
    return blue, red, dispute["id"]


def office_move(client: TestClient) -> str:
    """The seed's decision: an unknown over the move, which three items and a recorded decision rest on."""
    costs = add(client, "office", "costs", 120, scope={"situation": "office move"})
    commute = add(client, "office", "commute", "40 min", scope={"situation": "office move"})
    lease = add(client, "office", "lease", "5 years", scope={"situation": "office move"})
    decision = snapshot(client, ["office"])
    return declare(client, "office move", "Which option leaves us better off overall", factor="relocation",
                   affects=[costs, commute, lease], decisions=[decision], id="n_relocation_decision")


# --- choosing ----------------------------------------------------------------------------------------


def test_the_seeds_material_factor_added_beside_its_decision_is_the_question(client: TestClient) -> None:
    decision = office_move(client)
    revenue = add(client, "client", "revenue share", "35%", scope={"situation": "office move"})
    before = head(client)
    factor = {"situation": "office move", "text": "Would our largest client stay if we moved",
              "factor": "client retention", "affects": [revenue], "parent": decision, "id": "n_client_retention"}
    asked = next_question(client, preferred="n_client_retention", declare=factor)
    assert head(client) == before + 1  # the declaration and the asking are one entry
    assert (asked["path"], asked["rejected"], asked["target"], asked["targetKind"]) == (
        "preferred", None, "n_client_retention", "unknown")
    assert asked["text"] == "About client retention (in relocation): Would our largest client stay if we moved?"
    assert (asked["declared"], asked["asked"], asked["seq"], asked["askedAt"]) == (
        "n_client_retention", True, before + 1, before + 1)
    # Ranked alone, the decision would have been asked: the preference is what kept the factor.
    assert [s["target"] for s in asked["ranking"]] == [decision, "n_client_retention"]
    assert asked["ranking"][0] == {"target": decision, "targetKind": "unknown", "dependents": 3, "snapshots": 1,
                                   "decisions": 1, "materiality": 8, "openedAt": before - 1}
    assert asked["score"]["target"] == "n_client_retention" and asked["score"]["dependents"] == 1
    unknowns = nodes(data(client, "{ unknowns(answered: false) { edges { node { id parent affects } } } }")["unknowns"])
    assert unknowns[-1] == {"id": "n_client_retention", "parent": decision, "affects": [revenue]}


def test_a_declared_factor_that_bears_on_more_wins_the_fallback_too(client: TestClient) -> None:
    decision = office_move(client)
    unknowns = nodes(data(client, "{ unknowns { edges { node { decisions } } } }")["unknowns"])
    decision_snapshot = unknowns[0]["decisions"][0]
    revenue = add(client, "client", "revenue share", "35%", scope={"situation": "office move"})
    add(client, "client", "margin", "thin", derivedFrom=[revenue])
    add(client, "client", "bonus", "none", derivedFrom=[revenue])
    decided = snapshot(client, ["client"])
    factor = {"situation": "office move", "text": "Would our largest client stay if we moved",
              "factor": "client retention", "affects": [revenue], "decisions": [decided, decision_snapshot],
              "parent": decision}
    asked = next_question(client, declare=factor)
    assert (asked["path"], asked["preferred"], asked["rejected"]) == ("fallback", None, None)
    assert asked["target"] == asked["declared"] != decision
    assert asked["text"] == "About client retention (in relocation): Would our largest client stay if we moved?"
    assert [(s["target"], s["materiality"]) for s in asked["ranking"]] == [(asked["declared"], 11), (decision, 8)]
    assert asked["score"] == {"target": asked["declared"], "targetKind": "unknown", "dependents": 3,
                              "snapshots": 1, "decisions": 2, "materiality": 11, "openedAt": head(client)}


def test_a_valid_preferred_target_wins_and_asking_again_returns_the_open_question(client: TestClient) -> None:
    _, _, dispute = dispute_on_the_door(client)
    decision = office_move(client)
    first = next_question(client)
    assert (first["target"], first["path"]) == (decision, "fallback")  # the decision is more material
    preferred = next_question(client, preferred=dispute)
    assert (preferred["target"], preferred["targetKind"], preferred["path"], preferred["rejected"]) == (
        dispute, "dispute", "preferred", None)
    assert preferred["text"] == "Which is right for door colour: 'blue' or 'red'?"
    assert preferred["id"] != first["id"] and preferred["asked"] is True
    before = head(client)
    again = next_question(client, preferred=dispute)
    assert head(client) == before  # already open: no second asking
    assert (again["id"], again["asked"], again["seq"], again["askedAt"]) == (
        preferred["id"], False, None, preferred["askedAt"])
    listed = nodes(data(client, "{ questions(answered: false) { edges { node { id target path preferred askedBy } } "
                                "} }")["questions"])
    assert listed == [
        {"id": first["id"], "target": decision, "path": "fallback", "preferred": None, "askedBy": "agent"},
        {"id": preferred["id"], "target": dispute, "path": "preferred", "preferred": dispute, "askedBy": "agent"},
    ]


def test_a_missing_wrong_kind_or_resolved_preference_falls_back_and_says_why(client: TestClient) -> None:
    _, _, dispute = dispute_on_the_door(client)
    plain = add(client, "window", "glass", "double")
    decision = office_move(client)
    snap = nodes(data(client, "{ unknowns { edges { node { decisions } } } }")["unknowns"])[0]["decisions"][0]
    for preferred, reason in (("no-such-node", "missing"), (plain, "not_question_bearing"),
                              (snap, "not_question_bearing")):
        chosen = next_question(client, preferred=preferred)
        assert (chosen["path"], chosen["preferred"], chosen["rejected"], chosen["target"]) == (
            "fallback", preferred, reason, decision)
    data(client, 'mutation($k: String!) { resolveDispute(key: $k, value: "blue") { seq } }',
         {"k": nodes(data(client, DISPUTES)["disputes"])[0]["key"]})
    chosen = next_question(client, preferred=dispute)
    assert (chosen["path"], chosen["rejected"], chosen["target"]) == ("fallback", "resolved", decision)
    assert [s["target"] for s in chosen["ranking"]] == [decision]  # the closed dispute is not open
    asked = nodes(data(client, "{ questions { edges { node { id } } } }")["questions"])
    assert len(asked) == 1  # one open question about the decision, returned each time


def test_an_unknown_answered_in_the_meantime_is_a_resolved_preference(client: TestClient) -> None:
    decision = office_move(client)
    other = declare(client, "office move", "Is parking included", factor="parking")
    asked = next_question(client, preferred=other)
    answer(client, asked["id"], "no")
    chosen = next_question(client, preferred=other)
    assert (chosen["path"], chosen["rejected"], chosen["target"]) == ("fallback", "resolved", decision)


def build(client: TestClient, order: list[str]) -> None:
    """One store, built in the given order: three unknowns and a stale item of different materiality."""
    items: dict[str, str] = {}
    for name in order:
        if name == "items":
            items = {s: add(client, s, "value", n) for n, s in enumerate(["a", "b", "c", "d"])}
            data(client, 'mutation($i: [String!]) { raiseFlag(why: "drift", ids: $i) { id } }', {"i": [items["d"]]})
            data(client, 'mutation($i: [String!]!) { markUsed(ids: $i) { seq } }', {"i": [items["a"]]})
            data(client, "mutation { takeSnapshot(about: [\"d\"]) }")
        else:
            affects = {"u1": ["a"], "u2": ["a", "b", "c"], "u3": []}[name]
            declare(client, "plan", f"What about {name}", factor=name, affects=[items[a] for a in affects])


@pytest.mark.parametrize("order", [["items", "u1", "u2", "u3"], ["items", "u3", "u2", "u1"],
                                   ["items", "u2", "u3", "u1"]])
def test_the_fallback_is_the_same_whatever_order_the_store_was_built_in(backend: Backend, tmp_path: Path,
                                                                       order: list[str]) -> None:
    # The reference store is embedded; the shuffled one is on the backend under test (on Neo4j the
    # comparison is across backends too).
    with open_client(Backend("falkordb", tmp_path / "reference")) as reference, open_client(backend) as shuffled:
        build(reference, ["items", "u1", "u2", "u3"])
        build(shuffled, order)
        picks = [next_question(c) for c in (reference, shuffled)]
        ranked = [[(s["target"], s["materiality"]) for s in p["ranking"]] for p in picks]
        assert ranked[0] == ranked[1]
        assert (picks[0]["target"], picks[0]["text"]) == (picks[1]["target"], picks[1]["text"])
        assert picks[0]["text"] == "About u2 (in plan): What about u2?"
        assert [m for _, m in ranked[0]] == [3, 2, 1, 0]  # u2, the stale item d (a snapshot read it), u1, u3
        assert ranked[0][1][0] == data(reference, '{ items(filter: {s: "d"}) { edges { node { id } } } }')[
            "items"]["edges"][0]["node"]["id"]
        assert verified(reference) and verified(shuffled)


def test_open_questions_ranks_every_open_target_and_writes_nothing(client: TestClient) -> None:
    assert data(client, "{ openQuestions { totalCount edges { node { target } } } }")["openQuestions"] == {
        "totalCount": 0, "edges": []}
    before = head(client)
    nothing = next_question(client, preferred="anything")
    assert head(client) == before
    assert (nothing["id"], nothing["target"], nothing["text"], nothing["asked"], nothing["rejected"]) == (
        None, None, None, False, "missing")
    _, _, dispute = dispute_on_the_door(client)
    decision = office_move(client)
    asked = next_question(client)
    before = head(client)
    found = data(client, f"{{ openQuestions {{ totalCount edges {{ node {{ target targetKind subject text asked "
                         f"score {{ {SCORE} }} }} }} }} }}")
    assert found["openQuestions"]["totalCount"] == 2
    found = {"openQuestions": [e["node"] for e in found["openQuestions"]["edges"]]}
    page = data(client, "{ openQuestions(first: 1) { edges { node { target } } pageInfo { hasNextPage } } }")
    assert page["openQuestions"]["pageInfo"]["hasNextPage"] and len(page["openQuestions"]["edges"]) == 1
    assert head(client) == before
    assert [(q["target"], q["asked"]) for q in found["openQuestions"]] == [(decision, asked["id"]), (dispute, None)]
    assert found["openQuestions"][1]["subject"] == "door colour"


# --- answering ---------------------------------------------------------------------------------------


def test_answering_a_dispute_resolves_it(client: TestClient) -> None:
    blue, red, dispute = dispute_on_the_door(client)
    asked = next_question(client)
    assert asked["target"] == dispute
    wrong = error(client, ANSWER, {"q": asked["id"], "v": "green"})
    assert (wrong["extensions"]["code"], wrong["extensions"]["field"]) == ("BAD_USER_INPUT", "value")
    done = answer(client, asked["id"], "blue")
    assert (done["target"], done["targetKind"], done["answer"], done["added"]) == (dispute, "dispute", "blue", [])
    assert done["effect"] == {"resolve_dispute": dispute, "key": "door colour", "value": "blue"}
    assert {(c["id"], c["before"], c["after"]) for c in done["changes"]} == {
        (blue, "disputed", "active"), (red, "disputed", "refuted")}
    assert nodes(data(client, DISPUTES)["disputes"]) == []
    again = error(client, ANSWER, {"q": asked["id"], "v": "blue"})
    assert again["extensions"]["code"] == "CONFLICT" and "already answered" in again["message"]
    [q] = nodes(data(client, "{ questions(answered: true) { edges { node { id answer answeredBy } } } }")[
        "questions"])
    assert q == {"id": asked["id"], "answer": "blue", "answeredBy": "bob"}


def test_a_numeric_dispute_is_answered_with_the_value_as_the_items_hold_it(client: TestClient) -> None:
    five, seven = add(client, "stream", "threshold", 5), add(client, "stream", "threshold", 7)
    asked = next_question(client)
    assert asked["text"] == "Which is right for stream threshold: '5' or '7'?"
    done = answer(client, asked["id"], 7)
    assert {c["id"]: c["after"] for c in done["changes"]} == {five: "refuted", seven: "active"}


def test_answering_a_stale_item_confirms_it(client: TestClient) -> None:
    item = add(client, "stream", "threshold", 5, source="spec")
    data(client, 'mutation($i: [String!]) { raiseFlag(why: "the supplier changed", ids: $i) { id } }', {"i": [item]})
    assert data(client, "query($i: String!) { stale(id: $i) }", {"i": item})["stale"] != []
    asked = next_question(client, preferred=item)
    assert (asked["path"], asked["targetKind"]) == ("preferred", "stale_item")
    assert asked["text"].startswith("Is it still true that stream threshold is '5'? It was flagged for "
                                    "re-confirmation: ")
    assert "the supplier changed" in asked["text"]
    misuse = error(client, ANSWER, {"q": asked["id"], "v": "5"})
    assert misuse["extensions"]["field"] == "confirmed"
    done = answer(client, asked["id"], confirmed=True)
    assert (done["answer"], done["effect"], done["added"]) == ("confirmed", {"confirm_item": item}, [])
    assert {(c["id"], c["before"], c["after"]) for c in done["changes"]} == {(item, "hypothesis", "active")}
    shown = data(client, "query($i: String!) { item(id: $i) { status stale source } }", {"i": item})["item"]
    assert shown == {"status": "active", "stale": False, "source": "person"}
    assert data(client, "{ openQuestions { totalCount edges { node { target } } } }")["openQuestions"] == {
        "totalCount": 0, "edges": []}


def test_a_stale_item_no_longer_true_is_retired_and_its_new_value_recorded(client: TestClient) -> None:
    # Regression: the retirement and the new value both set the old Item node in one entry; the
    # graph kept the first upsert (expired) until the answer's upserts were merged (the fixture's verify).
    item = add(client, "stream", "threshold", 5)
    data(client, 'mutation($i: [String!]) { raiseFlag(why: "drift", ids: $i) { id } }', {"i": [item]})
    asked = next_question(client)
    done = answer(client, asked["id"], "9", confirmed=False)
    [new] = done["added"]
    assert done["effect"] == {"retire_item": item, "value": "9"}
    assert {c["id"]: c["after"] for c in done["changes"]} == {item: "refuted"}  # retired, then superseded
    shown = data(client, "query($i: String!) { item(id: $i) { status o source } }", {"i": new})["item"]
    assert shown == {"status": "active", "o": "9", "source": "person"}


def test_answering_an_unknown_adds_a_person_fact_and_survives_a_restart(backend: Backend) -> None:
    with open_client(backend) as client:
        decision = office_move(client)
        asked = next_question(client, preferred=decision)
        done = answer(client, asked["id"], "stay where we are")
        [fact] = done["added"]
        assert done["effect"]["answers_unknown"] == decision
        shown = data(client, "query($i: String!) { item(id: $i) { s r o source by scope status } }", {"i": fact})
        assert shown["item"] == {"s": "relocation", "r": "is", "o": "stay where we are", "source": "person",
                                 "by": "bob", "scope": {"situation": "office move"}, "status": "active"}
        twice = error(client, ANSWER, {"q": asked["id"], "v": "move"})
        assert twice["extensions"]["code"] == "CONFLICT"
        seq = head(client)
    with open_client(backend) as client:
        assert head(client) == seq
        [u] = nodes(data(client, "{ unknowns { edges { node { id answered answer } } } }")["unknowns"])
        assert u == {"id": decision, "answered": True, "answer": "stay where we are"}
        answered = nodes(data(client, "{ questions(answered: true) { edges { node { id } } } }")["questions"])
        assert answered == [{"id": asked["id"]}]
        assert verified(client)


def test_a_question_no_longer_open_or_unknown_is_a_clear_error(client: TestClient) -> None:
    _, _, dispute = dispute_on_the_door(client)
    asked = next_question(client)
    data(client, 'mutation($k: String!) { resolveDispute(key: $k, value: "red") { seq } }',
         {"k": nodes(data(client, DISPUTES)["disputes"])[0]["key"]})
    closed = error(client, ANSWER, {"q": asked["id"], "v": "blue"})
    assert (closed["extensions"]["code"], closed["extensions"]["field"]) == ("CONFLICT", "question")
    assert dispute in closed["message"] and "no longer open" in closed["message"]
    missing = error(client, ANSWER, {"q": "no-such-question", "v": "blue"})
    assert (missing["extensions"]["code"], missing["extensions"]["field"]) == ("NOT_FOUND", "question")


def test_bad_declarations_name_the_field_and_write_nothing(client: TestClient) -> None:
    absent = error(client, DECLARE, {"s": "plan", "t": "What now", "a": ["no-such-item"]})
    assert (absent["extensions"]["code"], absent["extensions"]["field"]) == ("NOT_FOUND", "affects")
    no_snap = error(client, DECLARE, {"s": "plan", "t": "What now", "d": ["snap-99"]})
    assert no_snap["extensions"]["field"] == "decisions"
    empty = error(client, DECLARE, {"s": " ", "t": "What now"})
    assert (empty["extensions"]["code"], empty["extensions"]["field"]) == ("BAD_USER_INPUT", "situation")
    declare(client, "plan", "What now")
    twice = error(client, DECLARE, {"s": "plan", "t": "What now"})
    assert twice["extensions"]["code"] == "CONFLICT"
    bad = error(client, NEXT, {"p": None, "d": {"situation": "plan", "text": "Who", "affects": ["nothing"]}})
    assert bad["extensions"]["field"] == "affects"
