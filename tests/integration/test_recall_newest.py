"""recall at the head reads each weight's newest and first written rows (cypher/observer_stream_newest.cypher) and
ranks from them when no row left out can enter the top k, on every backend: the statement keeps what it promises of
a random stream, and the API's recall is, for many parameters, the ranking over every row."""

from __future__ import annotations

import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.errors import UserError
from graph_service.service import Service
from graph_service.stream.as_of import newest_kept, stream_now
from graph_service.stream.recall import recall, recall_of_newest
from tests.backends import Backend
from tests.integration.graphql_client import data, gql

RECALL = """query($who: String!, $now: Long!, $k: Int!, $half: Float!, $wr: Float!, $wi: Float!) {
  recall(observer: $who, now: $now, k: $k, halfLife: $half, wRecency: $wr, wImportance: $wi) {
    rank id tick weight age recency importance score } }"""


def write_streams(client: TestClient, rng: random.Random) -> None:
    """Two observers' rows at random ticks (several at one tick, weights from the table or given), and a third
    whose only row another observer heard is not its own."""
    for who in ("cam", "dog"):
        data(client, 'mutation($w: String!) { declareObserver(observer: $w) { seq } }', {"w": who})
    for _ in range(70):
        given = rng.random() < 0.4
        data(client, """mutation($who: String!, $tick: Long!, $kind: String!, $mag: Int!, $w: Int) {
          observe(observer: $who, tick: $tick, kind: $kind, subject: "door", magnitude: $mag, weight: $w) { seq } }""",
             {"who": rng.choice(["cam", "cam", "dog"]), "tick": rng.randrange(60),
              "kind": "given" if given else "seen", "mag": 5 if given else 0,
              "w": rng.choice([None, 1, 9]) if given else None})


def rows_of(service: Service, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    return service.graph.run(name, params)


def test_the_newest_rows_rank_as_every_row(backend: Backend) -> None:
    rng = random.Random(5)
    service = Service.open(backend.settings())
    try:
        client = TestClient(create_app(service.settings, service=service))
        write_streams(client, rng)
        told_with_rows_left_out = 0
        for who in ("cam", "dog"):
            every = rows_of(service, "observer_stream", {"observer": who})
            whole = stream_now(every, who)
            for k in (1, 2, 3, 5, 40):
                newest = rows_of(service, "observer_stream_newest", {"observer": who, "k": k})
                nodes, cut = newest_kept(newest)
                kept = stream_now(nodes, who)
                # What the statement promises: each weight's rows from the tick of its k-th newest on, and those
                # written by the entry of its k-th first written or before, with the weight's count.
                for weight in {r.weight for r in whole}:
                    mine = [r for r in whole if r.weight == weight]
                    ticks = sorted((r.tick for r in mine), reverse=True)
                    entries = sorted(r.seq for r in mine)
                    for kept_as, chosen in (("newest", [r for r in mine if r.tick >= ticks[min(k, len(mine)) - 1]]),
                                            ("first", [r for r in mine if r.seq <= entries[min(k, len(mine)) - 1]])):
                        given = [n for n in newest if n["kept"] == kept_as and n["props"]["weight"] == weight]
                        assert sorted(n["props"]["id"] for n in given) == sorted(r.id for r in chosen), (who, k)
                        assert {n["weight_rows"] for n in given} == {len(mine)}
                for now_after, half, wr, wi in ((0, 50.0, 1.0, 1.0), (3, 5.0, 2.0, 0.5), (0, 50.0, 0.0, 1.0),
                                                (10**6, 50.0, 1.0, 1.0)):
                    now = max(r.tick for r in whole) + now_after
                    expected = recall(whole, now, k, half, wr, wi)
                    told_with_rows_left_out += bool(cut) and recall_of_newest(kept, cut, now, k, half, wr,
                                                                               wi) is not None
                    answer = data(client, RECALL, {"who": who, "now": now, "k": k, "half": half, "wr": wr, "wi": wi})
                    assert [(r["id"], r["score"]) for r in answer["recall"]] == [
                        (r.observation.id, r.score) for r in expected], (who, k, now, half, wr, wi)
        assert told_with_rows_left_out  # the rows kept told the ranking, though some were left out
        # Rows after now: the error names the first of them in write order, as recall over every row does.
        whole = stream_now(rows_of(service, "observer_stream", {"observer": "cam"}), "cam")
        now = sorted(r.tick for r in whole)[len(whole) // 2]
        with pytest.raises(UserError) as expected:
            recall(whole, now, 1)
        body = gql(client, RECALL, {"who": "cam", "now": now, "k": 1, "half": 50.0, "wr": 1.0, "wi": 1.0})
        assert body["errors"][0]["message"] == str(expected.value), body
    finally:
        service.close()
