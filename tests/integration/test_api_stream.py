"""The observation stream over GraphQL on the embedded backend (SPEC 3.6): the seed's worked
example through boundary writes (weights 3, 3, 8, 3, 9) and its recall at tick 470, hand-computed
in tests/unit/stream/test_seed_example.py from score = 0.5^(age/50) + weight/10:
  age 10: 0.5^0.2 = 0.870551 ; age 48: 0.5^0.96 = 0.514050 ; age 50: 0.5^1 = 0.5
and bad rows that are refused with nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings
from tests.integration.graphql_client import data, gql


def assert_verified(client: TestClient) -> None:
    assert data(client, "{ verify { ok projectionOk } }")["verify"] == {"ok": True, "projectionOk": True}


PRESENCE = """mutation($tick: Long!, $view: [String!]!, $moved: [TransferInput!]) {
  presence(observer: "browser-300", tick: $tick, inView: $view, transfers: $moved) {
    seq observer rows { id tick kind subject magnitude weight first } } }"""
RECALL = """query($now: Long!, $k: Int!) { recall(observer: "browser-300", now: $now, k: $k, halfLife: 50,
  wRecency: 1, wImportance: 1) { rank id kind subject tick magnitude weight age recency importance score } }"""


def seed_stream(client: TestClient) -> list[dict[str, Any]]:
    declared = data(client, """mutation { declareObserver(observer: "browser-300", wordless: true) {
      id wordless seq } }""")["declareObserver"]
    assert declared == {"id": "browser-300", "wordless": True, "seq": 1}
    boundaries = [
        (420, ["4", "7"], []),
        (421, ["7", "4"], []),  # the same two bodies: nothing comes into view, nothing is written
        (422, ["4", "7"], [{"kind": "given", "subject": "4", "magnitude": 32}]),
        (460, ["4", "7", "9"], [{"kind": "taken", "subject": "7", "magnitude": 6}]),
    ]
    rows: list[dict[str, Any]] = []
    for tick, view, moved in boundaries:
        written = data(client, PRESENCE, {"tick": tick, "view": view, "moved": moved})["presence"]
        rows += written["rows"]
    return rows


def test_boundary_writes_give_the_seed_rows_and_weights(client: TestClient) -> None:
    rows = seed_stream(client)
    assert [(r["id"], r["tick"], r["kind"], r["subject"], r["magnitude"], r["weight"]) for r in rows] == [
        ("obs-2-0", 420, "seen", "4", 0, 3),
        ("obs-2-1", 420, "seen", "7", 0, 3),
        ("obs-4-0", 422, "given", "4", 32, 8),  # 5 + 1 (first given to 4) + 2 (over 30)
        ("obs-5-0", 460, "seen", "9", 0, 3),
        ("obs-5-1", 460, "taken", "7", 6, 9),  # 7 + 1 (first taken) + 1 (over 5)
    ]
    assert all(r["first"] for r in rows)
    assert data(client, "{ head { seq } }")["head"]["seq"] == 5  # the empty boundary is still an entry
    node = data(client, '{ observation(id: "obs-5-1") { kind tick subject magnitude weight observer entry } }')
    assert node["observation"] == {"kind": "taken", "tick": 460, "subject": "7", "magnitude": 6, "weight": 9,
                                   "observer": "browser-300", "entry": 5}
    assert_verified(client)


def test_recall_at_tick_470_ranks_the_seed_rows(client: TestClient) -> None:
    seed_stream(client)
    ranked = data(client, RECALL, {"now": 470, "k": 5})["recall"]
    table = [(r["rank"], r["id"], r["kind"], r["subject"], r["age"], round(r["recency"], 4), r["importance"],
              round(r["score"], 4)) for r in ranked]
    assert table == [
        (1, "obs-5-1", "taken", "7", 10, 0.8706, 0.9, 1.7706),
        (2, "obs-4-0", "given", "4", 48, 0.5141, 0.8, 1.3141),
        (3, "obs-5-0", "seen", "9", 10, 0.8706, 0.3, 1.1706),
        (4, "obs-2-0", "seen", "4", 50, 0.5, 0.3, 0.8),
        (5, "obs-2-1", "seen", "7", 50, 0.5, 0.3, 0.8),  # an exact tie: the row written first ranks first
    ]
    assert ranked[3]["score"] == ranked[4]["score"]
    top = data(client, RECALL, {"now": 470, "k": 2})["recall"]
    assert [r["id"] for r in top] == ["obs-5-1", "obs-4-0"]
    weighted = data(client, """{ recall(observer: "browser-300", now: 470, k: 1, halfLife: 10, wRecency: 0,
      wImportance: 2) { id score } }""")["recall"]
    assert weighted == [{"id": "obs-5-1", "score": pytest.approx(1.8)}]
    assert_verified(client)


def test_observe_weighs_rows_from_the_table_or_takes_a_given_weight(client: TestClient) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    observe = """mutation($kind: String!, $subject: String!, $mag: Int!, $w: Int) {
      observe(observer: "cam", tick: 3, kind: $kind, subject: $subject, magnitude: $mag, weight: $w) {
        seq rows { id kind weight first } } }"""
    first = data(client, observe, {"kind": "seen", "subject": "door", "mag": 0})["observe"]
    again = data(client, observe, {"kind": "seen", "subject": "door", "mag": 0})["observe"]
    given = data(client, observe, {"kind": "given", "subject": "door", "mag": 40, "w": 10})["observe"]
    assert [(w["rows"][0]["weight"], w["rows"][0]["first"]) for w in (first, again, given)] == [
        (3, True), (2, False), (10, True)]
    assert first["rows"][0]["id"] == f"obs-{first['seq']}-0"
    assert_verified(client)


BAD = [
    ('mutation { observe(observer: "cam", tick: 1, kind: "smelt", subject: "x") { seq } }',
     "kind 'smelt' is not a known kind", "BAD_USER_INPUT", "kind"),
    ('mutation { observe(observer: "cam", tick: 1, kind: "seen", subject: "x", magnitude: 3) { seq } }',
     "magnitude must be 0 for kind 'seen', got 3", "BAD_USER_INPUT", "magnitude"),
    ('mutation { observe(observer: "cam", tick: 1, kind: "given", subject: "x") { seq } }',
     "magnitude must be greater than 0 for kind 'given', got 0", "BAD_USER_INPUT", "magnitude"),
    ('mutation { observe(observer: "cam", tick: -1, kind: "seen", subject: "x") { seq } }',
     "tick must not be negative, got -1", "BAD_USER_INPUT", "tick"),
    ('mutation { observe(observer: "cam", tick: 1, kind: "seen", subject: "x", weight: 11) { seq } }',
     "weight must be between 1 and 10, got 11", "BAD_USER_INPUT", "weight"),
    ('mutation { observe(observer: "ghost", tick: 1, kind: "seen", subject: "x") { seq } }',
     "observer ghost is not declared", "NOT_FOUND", "observer"),
    ('mutation { presence(observer: "cam", tick: 4, inView: ["x"]) { seq } }',
     "tick 4 is before this observer's last boundary at tick 5", "BAD_USER_INPUT", "tick"),
    ('mutation { presence(observer: "cam", tick: 9, inView: ["x"], transfers: [{kind: "seen", subject: "x", '
     'magnitude: 1}]) { seq } }',
     "transfers[0].kind 'seen' is written by the boundary itself", "BAD_USER_INPUT", "transfers[0].kind"),
    ('mutation { declareObserver(observer: "cam") { seq } }',
     "observer cam is already declared", "CONFLICT", "observer"),
    ('{ recall(observer: "cam", now: 4) { id } }',
     "observation obs-2-0 is at tick 5, after tick 4", "BAD_USER_INPUT", "now"),
    ('{ recall(observer: "cam", now: 9, k: -1) { id } }',
     "k must be a non-negative integer, got -1", "BAD_USER_INPUT", "k"),
    ('{ recall(observer: "cam", now: 9, halfLife: 0) { id } }',
     "half_life must be greater than 0, got 0.0", "BAD_USER_INPUT", "half_life"),
    ('{ recall(observer: "ghost", now: 9) { id } }', "observer ghost is not declared", "NOT_FOUND", "observer"),
]


@pytest.mark.parametrize(("query", "message", "code", "field"), BAD, ids=[f"{b[3]}-{i}" for i, b in enumerate(BAD)])
def test_bad_rows_are_refused_and_nothing_is_written(client: TestClient, query: str, message: str, code: str,
                                                     field: str) -> None:
    data(client, 'mutation { declareObserver(observer: "cam") { id } }')
    data(client, 'mutation { presence(observer: "cam", tick: 5, inView: ["x"]) { seq } }')
    before = data(client, "{ head { seq hash } }")["head"]
    body = gql(client, query)
    assert body["data"] is None
    error = body["errors"][0]
    assert message in error["message"]
    assert error["extensions"] == {"code": code, "field": field}
    assert data(client, "{ head { seq hash } }")["head"] == before
    assert_verified(client)


def test_the_stream_replays_after_a_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    with TestClient(create_app(settings)) as first:
        seed_stream(first)
        ranked = data(first, RECALL, {"now": 470, "k": 5})["recall"]
    with TestClient(create_app(settings)) as second:
        assert data(second, RECALL, {"now": 470, "k": 5})["recall"] == ranked
        # The boundary state is replayed too: the same view again writes nothing.
        again = data(second, PRESENCE, {"tick": 461, "view": ["9", "7", "4"], "moved": []})["presence"]
        assert again["rows"] == []
        assert_verified(second)
