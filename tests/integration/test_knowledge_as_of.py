"""The knowledge reads as of a position on every backend: items, flags, disputes, stale, snapshot and
report with `asOf: N` are answered from the graph's history and equal what the same reads give over a
replay of the journal up to N, at random positions of a random history: the realistic mix with flags
raised and ended, same-key facts disputing and resolved, ticks running re-confirmation periods out,
uses, recorded snapshots, retractions, rollbacks, and questions answered (an answer's own adds)."""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.api.knowledge_as_of import knowledge_as_of, knowledge_position
from graph_service.journal.notes import plan_note
from graph_service.knowledge import ops
from graph_service.knowledge.as_of import split_reasons
from graph_service.knowledge.state import KnowledgeState
from graph_service.questions.select import select_next_question
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.questions.targets import StateTargets, TargetView
from graph_service.questions.text import formulate
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.graphql_client import gql
from tests.integration.knowledge_histories import write_knowledge_history

ITEM_FIELDS = "id status why uses wrongUses support stale staleReasons"
ITEMS = f"""query($f: ItemFilter, $first: Int, $after: String, $n: Long) {{
  items(filter: $f, first: $first, after: $after, asOf: $n) {{
    totalCount pageInfo {{ hasNextPage hasPreviousPage endCursor }} edges {{ cursor node {{ {ITEM_FIELDS} }} }} }} }}"""
FLAGS = """query($p: Boolean, $first: Int, $after: String, $n: Long, $items: Boolean = false) {
  flags(pending: $p, first: $first, after: $after, asOf: $n) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { id kind why pending raisedAt endedAt key scope covers
                          coveredItems @include(if: $items) { id status } } } } }"""
DISPUTES = """query($n: Long) { disputes(first: 500, asOf: $n) { totalCount edges { cursor node {
  id key values items openedAt open closedAt resolved question disputedItems { id status } } } } }"""
STALE = """query($id: String!, $n: Long) { stale(id: $id, asOf: $n) item(id: $id, asOf: $n) { stale staleReasons } }"""
SNAPSHOT = """query($a: [String!], $r: String, $k: [ItemKind!], $n: Long) {
  snapshot(about: $a, relation: $r, kinds: $k, asOf: $n) }"""
REPORT = "query($n: Long) { report(asOf: $n) }"


def _plain(value: Any) -> Any:
    """A value as it comes back over GraphQL's JSON."""
    return json.loads(json.dumps(value))


def _reference_items(then: KnowledgeState, filters: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": p["id"], "status": p["status"], "why": p.get("why") or "", "uses": p.get("uses") or 0,
             "wrongUses": p.get("wrong_uses") or 0, "support": [str(s) for s in p.get("support") or []],
             "stale": bool(then.stale_reasons(p["id"])), "staleReasons": then.stale_reasons(p["id"])}
            for p in then.find(**filters)]


def _every_page(client: TestClient, position: int, filters: dict[str, Any] | None, size: int) -> list[Any]:
    """Every item of the read, page by page with the cursors, checking each page's totals."""
    found, after, total = [], None, None
    while True:
        got = gql(client, ITEMS, {"f": filters, "first": size, "after": after, "n": position})
        assert "errors" not in got, got
        page = got["data"]["items"]
        total = page["totalCount"] if total is None else total
        assert page["totalCount"] == total
        assert page["pageInfo"]["hasPreviousPage"] == (after is not None and total > 0)
        found += [e["node"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            assert len(found) == total
            return found
        after = page["pageInfo"]["endCursor"]


def _check_flags(client: TestClient, position: int, then: KnowledgeState) -> int:
    every = list(then.flags.values())
    for pending in (None, True, False):
        got = gql(client, FLAGS, {"p": pending, "first": 500, "n": position, "items": pending is None})
        assert "errors" not in got, got
        nodes = [e["node"] for e in got["data"]["flags"]["edges"]]
        expected = [{"id": f.id, "kind": f.kind, "why": f.why, "pending": f.pending, "raisedAt": f.seq,
                     "endedAt": f.ended_at, "key": f.key, "scope": f.scope, "covers": sorted(f.covers),
                     **({"coveredItems": [{"id": i, "status": then.items[i].status} for i in sorted(f.covers)]}
                        if pending is None else {})}
                    for f in every if pending is None or f.pending == pending]
        assert nodes == expected, (position, pending)
    # Paged three at a time, the cursors walk the same flags.
    walked, after = [], None
    while True:
        page = gql(client, FLAGS, {"first": 3, "after": after, "n": position})["data"]["flags"]
        walked += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert walked == [f.id for f in every]
    return len(every)


def _check_disputes(client: TestClient, position: int, then: KnowledgeState) -> int:
    got = gql(client, DISPUTES, {"n": position})
    assert "errors" not in got, got
    nodes = [e["node"] for e in got["data"]["disputes"]["edges"]]
    events = sorted(then.open_disputes.values(), key=lambda e: (e.opened_at, e.key))
    expected = [{"id": d["id"], "key": d["key"], "values": d["values"], "items": d["items"],
                 "openedAt": d["opened_at"], "open": True, "closedAt": None, "resolved": None,
                 "question": d["question"], "disputedItems": [{"id": i, "status": then.items[i].status}
                                                              for i in d["items"]]}
                for d in then.disputes()]
    assert nodes == expected and len(events) == len(nodes), position
    return len(nodes)


def _check_reconstruction(service: Service, position: int, then: KnowledgeState, questions: Any) -> None:
    """What the lead reuses: the state at N holds the records a replay holds, and the question targets
    read over it are the replay's."""
    got = knowledge_as_of(service, position)
    assert sorted(got.items) == sorted(then.items)
    for item_id, rec in then.items.items():
        mine = got.items[item_id]
        assert [(a.assertion, a.retracted_at) for a in mine.assertions] == \
            [(a.assertion, a.retracted_at) for a in rec.assertions], (position, item_id)
        assert mine.flags == rec.flags and mine.verdict.reasons == rec.verdict.reasons, (position, item_id)
        assert mine.materialise() == rec.materialise(), (position, item_id)
    assert {i: (f.pending, f.ended_at, f.covers) for i, f in got.flags.items()} == \
        {i: (f.pending, f.ended_at, f.covers) for i, f in then.flags.items()}
    assert got.dispute_events == then.dispute_events and got.open_disputes == then.open_disputes
    assert (got.clock, got.position, got.refusals) == (then.clock, then.position, then.refusals)
    assert got.dependents_of == then.dependents_of and got.superseded_by == then.superseded_by
    assert {s: ([f["id"] for f in v["facts"]], [h["id"] for h in v["hints"]], v["query"], v["position"])
            for s, v in got.snapshots.items()} == \
        {s: ([f["id"] for f in v["facts"]], [h["id"] for h in v["hints"]], v["query"], v["position"])
         for s, v in then.snapshots.items()}
    got_view, then_view = TargetView(StateTargets(got), questions), TargetView(StateTargets(then), questions)
    assert got_view.candidates() == then_view.candidates()


OPEN_QUESTIONS = """query($n: Long) { openQuestions(first: 500, asOf: $n) { totalCount edges { node {
  target targetKind subject parent text asked score { materiality openedAt } } } } }"""


def _check_open_questions(client: TestClient, position: int, then: KnowledgeState, questions: Any) -> int:
    """openQuestions as of N: the replay's targets, ranked the same, each with the question open on it then."""
    got = gql(client, OPEN_QUESTIONS, {"n": position})
    assert "errors" not in got, got
    candidates = {c.id: c for c in TargetView(StateTargets(then), questions).candidates()}
    expected = []
    for s in select_next_question(candidates.values()).ranking:
        c, pending = candidates[s.id], questions.open_question_for(s.id)
        expected.append({"target": c.id, "targetKind": c.kind, "subject": c.subject, "parent": c.parent,
                         "text": formulate(c), "asked": pending.id if pending else None,
                         "score": {"materiality": s.materiality, "openedAt": s.opened_at}})
    page = got["data"]["openQuestions"]
    assert [e["node"] for e in page["edges"]] == expected and page["totalCount"] == len(expected), position
    return len(expected)


def test_the_knowledge_reads_as_of_any_position_are_the_replay_s(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 200, 11)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(20261203)
        # An answer's own add (a person confirming a stale item) is an assertion the item's node history
        # reaches through the answer's entry: the history must hold some.
        answered = [e for e in entries if e.op == ANSWER_QUESTION
                    and any(sub["op"] == ops.ADD for sub in e.payload.get("knowledge") or ())]
        seen: dict[str, int] = {"flags": 0, "disputes": 0, "stale": 0, "hints": 0, "refused": 0,
                                "answered": len(answered)}
        # Random positions, and one where a dispute that is closed now was open.
        closed = [e.opened_at for v in service.state.knowledge.dispute_events.values() for e in v if not e.open]
        for position in [0, *sorted(rng.sample(range(1, head), 4)), *closed[:1], head]:
            whole = replay(entries, upto=position)
            then = whole.knowledge
            # items: every one, filtered, and page by page with the cursors
            for filters in ({}, {"status": ["active"]}, {"stale": True}, {"s": "gadget-1"},
                            {"ids": [*sorted(then.items)[:5], "k-nothing"]}):
                expected = _reference_items(then, filters)
                assert _every_page(client, position, filters or None, 500) == expected, (position, filters)
            assert _every_page(client, position, None, 7) == _reference_items(then, {})
            seen["flags"] += _check_flags(client, position, then)
            seen["disputes"] += _check_disputes(client, position, then)
            for item_id in rng.sample(sorted(then.items), min(5, len(then.items))):
                got = gql(client, STALE, {"id": item_id, "n": position})
                assert "errors" not in got, got
                reasons = then.stale_reasons(item_id)
                assert got["data"] == {"stale": reasons, "item": {"stale": bool(reasons), "staleReasons": reasons}}
                seen["stale"] += bool(reasons)
            for about, relation, kinds in ((None, None, None), (["gadget-1", "gadget-2"], None, None),
                                           (None, "colour", ["fact"])):
                got = gql(client, SNAPSHOT, {"a": about, "r": relation, "k": kinds, "n": position})
                assert "errors" not in got, got
                expected = then.snapshot(about=about, relation=relation, kinds=kinds)
                assert got["data"]["snapshot"] == _plain(expected), (position, about)
                seen["hints"] += len(expected["hints"])
            got = gql(client, REPORT, {"n": position})
            assert "errors" not in got, got
            assert got["data"]["report"] == _plain(then.report()), position
            seen["refused"] += then.report()["refused"]
            _check_reconstruction(service, position, then, whole.questions)
            seen["open targets"] = seen.get("open targets", 0) + _check_open_questions(client, position, then,
                                                                                       whole.questions)
        # The history reached what the reads are about (so the comparisons above could fail).
        assert all(seen.values()), seen
    finally:
        service.close()


def test_as_of_past_the_head_or_past_the_kept_history_is_refused_naming_as_of(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 80, 5)
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        for query, variables in ((ITEMS, {}), (FLAGS, {}), (DISPUTES, {}), (SNAPSHOT, {}), (REPORT, {}),
                                 (STALE, {"id": sorted(service.state.knowledge.items)[0]})):
            got = gql(client, query, {**variables, "n": head + 1})
            error = got["errors"][0]
            assert error["extensions"]["field"] == "asOf" and f"position {head + 1}" in error["message"], query
        missing = gql(client, STALE, {"id": "k-nothing", "n": head})
        assert "no item 'k-nothing' at position" in missing["errors"][0]["message"]
        # A store written before history was kept: what a read needs and the graph lacks is an error
        # naming asOf, never a guess; the reads that do not need it still answer.
        assert gql(client, FLAGS, {"n": head})["data"]["flags"]["totalCount"] > 0
        assert service.state.knowledge.dispute_events  # Dispute nodes, open or closed, to read
        backend.raw(service.graph, "MATCH ()-[c:COVERS]->() SET c.since_seq = NULL")
        assert "errors" not in gql(client, DISPUTES, {"n": head})
        for query in (FLAGS, REPORT):
            got = gql(client, query, {"n": head})
            assert "kept no history" in got["errors"][0]["message"], query
            assert got["errors"][0]["extensions"]["field"] == "asOf"
        backend.raw(service.graph, "MATCH (:Dispute)<-[w:WROTE]-() SET w.changes = NULL")
        assert "kept no history" in gql(client, DISPUTES, {"n": head})["errors"][0]["message"]
    finally:
        service.close()


def test_reasons_keep_a_reason_that_holds_the_separator() -> None:
    whole = ["flag flag-3 pending: open set; recheck"]
    assert split_reasons("rests on k-1, not active; flag flag-3 pending: open set; recheck", whole) == \
        ("rests on k-1, not active", "flag flag-3 pending: open set; recheck")
    assert split_reasons("a; b", whole) == ("a", "b") and split_reasons("", whole) == ()


def test_the_knowledge_position_is_found_behind_a_long_run_of_other_entries(backend: Backend) -> None:
    # The look-back widens its windows (64, 256, 1,024 ...): behind 700 notes it must still land on the last
    # knowledge entry, and on 0 when there is none.
    service = Service.open(backend.whole_state_settings())
    try:
        service.journal.write_batch("ann", [lambda n=n: plan_note(f"note {n}") for n in range(30)])
        assert knowledge_position(service.graph, service.journal.seq) == 0
        write_knowledge_history(service, 6, 2)
        last = replay(service.journal.entries_after(0)).knowledge.position
        service.journal.write_batch("ann", [lambda n=n: plan_note(f"later {n}") for n in range(700)])
        assert last > 30 and knowledge_position(service.graph, service.journal.seq) == last
        assert knowledge_position(service.graph, last) == last and knowledge_position(service.graph, 30) == 0
    finally:
        service.close()
