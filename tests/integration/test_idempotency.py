"""Idempotency-Key: a retried mutation returns the first answer and writes nothing, on both backends.

Every mutation of the schema is sent twice with one key (a catalogue, checked to cover the schema),
and a sample twice at once; a key sent again with another request is 422; keys survive a restart
and a kill -9 of the serving process.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import graphql
import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.api.schema import build_schema
from graph_service.errors import AlreadyWritten
from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.once import WriteOnce
from graph_service.journal.store import Journal
from tests.backends import Backend
from tests.integration.test_explorer import serve

HEAD = "{ head { seq } }"
Seen = dict[str, Any]


def post(client: TestClient, query: str, variables: dict[str, Any] | None = None, key: str | None = None,
         headers: dict[str, str] | None = None) -> Any:
    sent = dict(headers or {})
    if key is not None:
        sent["Idempotency-Key"] = f'"{key}"'
    return client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=sent)


def head(client: TestClient) -> int:
    return post(client, HEAD).json()["data"]["head"]["seq"]


# One valid request per mutation, in an order where each finds what it needs: (name, query, variables
# from what earlier answers gave, what to keep of this answer).
Case = tuple[str, str, Callable[[Seen], dict[str, Any]], Callable[[dict[str, Any], Seen], None]]


def _keep(name: str, path: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any], Seen], None]:
    def kept(data: dict[str, Any], seen: Seen) -> None:
        seen[name] = path(data)
    return kept


def _none(data: dict[str, Any], seen: Seen) -> None:
    return None


FACT = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "blue"}, "source": "person"}
RULE = {"kind": "rule", "body": {"s": "deploy", "r": "needs", "o": "review"}, "source": "spec"}
REFUSED_HERE = {"promoteItem"}
RIVAL = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "red"}, "source": "person"}
CASES: list[Case] = [
    ("note", "mutation { note(text: \"once\") { seq hash } }", lambda s: {}, _none),
    ("addItem", "mutation($i: ItemInput!) { addItem(item: $i) { id status seq } }", lambda s: {"i": FACT},
     _keep("item", lambda d: d["addItem"]["id"])),
    ("rule", "mutation($i: ItemInput!) { addItem(item: $i) { id } }", lambda s: {"i": RULE},
     _keep("rule", lambda d: d["addItem"]["id"])),
    # The service's default gates admit every rule at once, so there is nothing held to promote: the
    # refusal is what is sent twice (a refused write keeps no key; its retry is refused alike).
    ("promoteItem", "mutation($id: String!) { promoteItem(id: $id) { seq changes { id after } } }",
     lambda s: {"id": s["rule"]}, _none),
    ("reconfirmItem", "mutation($id: String!) { reconfirmItem(id: $id) { seq } }", lambda s: {"id": s["item"]}, _none),
    ("markUsed", "mutation($id: String!) { markUsed(ids: [$id]) { seq } }", lambda s: {"id": s["item"]}, _none),
    ("raiseFlag", "mutation($id: String!) { raiseFlag(why: \"repainted?\", ids: [$id]) { seq id } }",
     lambda s: {"id": s["item"]}, _keep("flag", lambda d: d["raiseFlag"]["id"])),
    ("endFlag", "mutation($f: String!) { endFlag(flag: $f) { seq } }", lambda s: {"f": s["flag"]}, _none),
    ("tick", "mutation { tick(k: 1) { seq } }", lambda s: {}, _none),
    ("takeSnapshot", "mutation { takeSnapshot(about: [\"door\"]) }", lambda s: {}, _none),
    ("rival", "mutation($i: ItemInput!) { addItem(item: $i) { id } }", lambda s: {"i": RIVAL},
     _keep("rival", lambda d: d["addItem"]["id"])),
    ("resolveDispute", "mutation($k: String!) { resolveDispute(key: $k, value: \"blue\") { seq } }",
     lambda s: {"k": '[{},"door","colour"]'}, _none),
    ("rollbackItem", "mutation($id: String!) { rollbackItem(id: $id) { seq } }", lambda s: {"id": s["rival"]}, _none),
    ("retireItem", "mutation($id: String!) { retireItem(id: $id) { seq } }", lambda s: {"id": s["rule"]}, _none),
    ("retractItem", "mutation($id: String!) { retractItem(id: $id, why: \"wrong\") { seq changes { id after } } }",
     lambda s: {"id": s["item"]}, _none),
    ("createBelief", "mutation { createBelief(proposition: \"the pump is on\", subject: \"pump\", "
     "evidence: [{weight: 0.6, actor: \"ann\"}]) { seq belief { id } changes { after { confidence } } } }",
     lambda s: {}, _keep("belief", lambda d: d["createBelief"]["belief"]["id"])),
    ("other", "mutation { createBelief(proposition: \"the pump is off\", subject: \"pump\") { belief { id } } }",
     lambda s: {}, _keep("other", lambda d: d["createBelief"]["belief"]["id"])),
    ("addEvidence", "mutation($b: String!) { addEvidence(belief: $b, evidence: {weight: 0.5, actor: \"bob\"}) "
     "{ seq evidence changes { after { confidence } } } }", lambda s: {"b": s["belief"]},
     _keep("evidence", lambda d: d["addEvidence"]["evidence"][0])),
    ("retractEvidence", "mutation($e: String!) { retractEvidence(evidence: $e) { seq } }",
     lambda s: {"e": s["evidence"]}, _none),
    ("proposeContradiction", "mutation($a: String!, $b: String!) { proposeContradiction(a: $a, b: $b) { seq } }",
     lambda s: {"a": s["belief"], "b": s["other"]}, _none),
    ("pinBelief", "mutation($b: String!) { pinBelief(belief: $b, status: accepted) { seq } }",
     lambda s: {"b": s["belief"]}, _none),
    ("correctBelief", "mutation($b: String!) { correctBelief(belief: $b, reason: \"gauge\") { seq } }",
     lambda s: {"b": s["other"]}, _none),
    ("doNotInfer", "mutation { doNotInfer(proposition: \"the moon is cheese\") { seq } }", lambda s: {}, _none),
    ("sameEntity", "mutation { sameEntity(subject: \"truck-1\", other: \"lorry-7\") { seq } }", lambda s: {}, _none),
    ("differentEntity", "mutation { differentEntity(subject: \"truck-1\", other: \"lorry-7\") { seq } }",
     lambda s: {}, _none),
    ("declareObserver", "mutation { declareObserver(observer: \"cam\") { id } }", lambda s: {}, _none),
    ("observe", "mutation { observe(observer: \"cam\", tick: 1, kind: \"seen\", subject: \"truck-1\") "
     "{ seq rows { id } } }", lambda s: {}, _keep("observation", lambda d: d["observe"]["rows"][0]["id"])),
    ("presence", "mutation { presence(observer: \"cam\", tick: 2, inView: [\"truck-1\"]) { seq rows { id } } }",
     lambda s: {}, _keep("observation2", lambda d: d["presence"]["rows"][0]["id"])),
    ("associate", "mutation($o: String!, $p: String!) { associate(observations: [{id: $o, at: 1, summary: "
     "\"truck seen\"}, {id: $p, at: 2, summary: \"truck in view\"}], windowMs: 4102444800000) { seq } }",
     lambda s: {"o": s["observation"], "p": s["observation2"]}, _none),
    ("markInaccurate", "mutation($o: String!) { markInaccurate(rootId: $o, reason: \"fog\") { seq } }",
     lambda s: {"o": s["observation"]}, _none),
    ("say", "mutation { say(text: \"the deploy failed\", speaker: \"ann\", tick: 3) { seq assertions { claim } } }",
     lambda s: {}, _none),
    ("declareUnknown", "mutation { declareUnknown(situation: \"deploy\", factor: \"owner\", "
     "text: \"who owns the deploy?\") { id } }", lambda s: {}, _keep("unknown", lambda d: d["declareUnknown"]["id"])),
    ("nextQuestion", "mutation($u: String!) { nextQuestion(preferred: $u) { asked id seq } }",
     lambda s: {"u": s["unknown"]}, _keep("question", lambda d: d["nextQuestion"]["id"])),
    ("answerQuestion", "mutation($q: String!) { answerQuestion(question: $q, value: \"ann\") { question } }",
     lambda s: {"q": s["question"]}, _none),
]


def test_the_catalogue_covers_every_mutation() -> None:
    schema = graphql.build_schema(build_schema().as_str())
    covered = {graphql.parse(q).definitions[0].selection_set.selections[0].name.value for _, q, _, _ in CASES}
    assert covered == set(schema.mutation_type.fields), set(schema.mutation_type.fields) ^ covered


@pytest.fixture
def client(backend: Backend) -> Iterator[TestClient]:
    with TestClient(create_app(backend.settings())) as c:
        yield c


def test_every_mutation_sent_twice_writes_once_and_answers_the_same(client: TestClient) -> None:
    seen: Seen = {}
    wrote = 0
    for name, query, variables, keep in CASES:
        before = head(client)
        first = post(client, query, variables(seen), key=f"k-{name}")
        assert first.status_code == 200 and ("errors" in first.json()) == (name in REFUSED_HERE), (name, first.text)
        after = head(client)
        again = post(client, query, variables(seen), key=f"k-{name}")
        assert head(client) == after, f"{name}: the retry wrote again"
        assert again.status_code == 200, (name, again.text)
        assert again.json() == first.json(), name
        if after > before:
            assert after == before + 1, name
            assert again.headers.get("idempotent-replayed") == "true", name
            wrote += 1
        if name not in REFUSED_HERE:
            keep(first.json()["data"], seen)
    assert wrote == len(CASES) - len(REFUSED_HERE)


def test_without_a_key_a_retry_writes_again(client: TestClient) -> None:
    before = head(client)
    post(client, "mutation { note(text: \"twice\") { seq } }")
    post(client, "mutation { note(text: \"twice\") { seq } }")
    assert head(client) == before + 2


def test_the_same_key_with_another_request_is_422_and_writes_nothing(client: TestClient) -> None:
    assert post(client, "mutation { note(text: \"a\") { seq } }", key="k").status_code == 200
    before = head(client)
    other = post(client, "mutation { note(text: \"b\") { seq } }", key="k")
    assert other.status_code == 422
    assert other.json()["errors"][0]["extensions"]["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert head(client) == before


def test_keys_are_scoped_to_the_caller(backend: Backend) -> None:
    tokens = {"tok-ann": "writer", "tok-bob": "writer"}
    settings = backend.settings()
    os.environ["GRAPH_SERVICE_TOKENS_JSON"] = json.dumps(tokens)
    try:
        with TestClient(create_app(settings)) as c:
            ann, bob = {"authorization": "Bearer tok-ann"}, {"authorization": "Bearer tok-bob"}
            query = "mutation { note(text: \"mine\") { seq } }"
            assert post(c, query, key="same", headers=ann).json()["data"]["note"]["seq"] == 1
            assert post(c, query, key="same", headers=bob).json()["data"]["note"]["seq"] == 2
            assert post(c, query, key="same", headers=ann).json()["data"]["note"]["seq"] == 1
    finally:
        del os.environ["GRAPH_SERVICE_TOKENS_JSON"]


@pytest.mark.parametrize("header", ['""', '"unterminated', "x" * 256, '"caf\u00e9"'])
def test_a_malformed_key_is_400_and_writes_nothing(client: TestClient, header: str) -> None:
    before = head(client)
    answer = client.post("/graphql", json={"query": "mutation { note(text: \"x\") { seq } }"},
                         headers={"Idempotency-Key": header.encode("latin-1")})
    assert answer.status_code == 400 and answer.json()["errors"][0]["extensions"]["code"] == "BAD_IDEMPOTENCY_KEY"
    assert head(client) == before


def test_a_key_covers_one_mutation_field(client: TestClient) -> None:
    before = head(client)
    answer = post(client, "mutation { a: note(text: \"a\") { seq } b: note(text: \"b\") { seq } }", key="two")
    assert answer.status_code == 400 and "one mutation field" in answer.json()["errors"][0]["message"]
    assert head(client) == before


def test_a_keyed_query_is_just_a_query(client: TestClient) -> None:
    answer = post(client, HEAD, key="q")
    assert answer.status_code == 200 and answer.json()["data"]["head"]["seq"] == 0


def test_a_refused_write_keeps_nothing_and_its_retry_runs_again(client: TestClient) -> None:
    bad = post(client, "mutation { retractItem(id: \"nope\") { seq } }", key="r")
    assert bad.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert post(client, "mutation { retractItem(id: \"nope\") { seq } }", key="r").json() == bad.json()
    assert head(client) == 0


def test_the_same_key_sent_at_once_writes_once(client: TestClient) -> None:
    answers: list[Any] = []

    def send() -> None:
        answers.append(post(client, "mutation { note(text: \"race\") { seq hash } }", key="race"))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert head(client) == 1
    assert {a.status_code for a in answers} == {200}
    assert len({json.dumps(a.json(), sort_keys=True) for a in answers}) == 1


def _post_over_http(base: str, query: str, key: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{base}/graphql", data=json.dumps({"query": query}).encode(),
                                     headers={"content-type": "application/json", "Idempotency-Key": f'"{key}"'})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_keys_survive_a_kill_9_of_the_service(backend: Backend, tmp_path: Path) -> None:
    query = "mutation { note(text: \"durable\") { seq hash } }"
    with serve(backend, tmp_path) as base:
        status, first = _post_over_http(base, query, "durable")
        assert status == 200 and "errors" not in first
        pid = int((tmp_path / "serve.pid").read_text())
        os.kill(pid, signal.SIGKILL)
    with serve(backend, tmp_path) as base:
        status, again = _post_over_http(base, query, "durable")
        assert status == 200 and again == first
        status, head_now = _post_over_http(base, HEAD, "any")
        assert head_now["data"]["head"]["seq"] == 1


def test_two_journals_racing_with_one_key_write_once(backend: Backend) -> None:
    """The look-up and the append are one compare-and-set step: a writer that looked the key up before
    another's append lost the race, and its retry finds the key."""
    graph = backend.open_graph()  # two journals, as two processes would have, on one store
    try:
        a, b = Journal(graph, [NoteDomain()]).open(), Journal(graph, [NoteDomain()]).open()
        once_a, once_b = WriteOnce.of("ann", "k", "same request"), WriteOnce.of("ann", "k", "same request")

        def plan_while_the_other_writes() -> Any:
            if not a.seq:  # b has looked the key up and planned; a appends with the key first
                a.write("ann", lambda: plan_note("by a"), once_a)
            return plan_note("by b")

        with pytest.raises(AlreadyWritten) as raised:
            b.write("ann", plan_while_the_other_writes, once_b)
        assert raised.value.seq == 1 and once_b.written is None
        assert [e.payload["text"] for e in b.entries_after(0)] == ["by a"]
    finally:
        graph.close()
