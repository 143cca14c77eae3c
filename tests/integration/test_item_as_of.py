"""`item(id, asOf: N)` on every backend: answered from the graph's history, it equals the item a replay
of the journal up to N holds, at random positions of a random history of the realistic mix (facts
with premises and shared keys, retractions); its staleness then too (flags and the clock then: see
test_knowledge_as_of.py, whose history raises them)."""

from __future__ import annotations

import random

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.graphql_client import gql

AS_OF = """query($id: String!, $n: Long) { item(id: $id, asOf: $n) {
  id status source rank support premises summary why learnedAt confirmedAt promoted } }"""


def test_an_item_as_of_any_position_is_the_replay_s(backend: Backend) -> None:
    from benchmarks.service_shape import mix

    service = Service.open(backend.whole_state_settings())
    try:
        for plan in mix(service, 300, 3):
            service.journal.write("loader", plan)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(20261202)
        checked, statuses = 0, set()
        for position in [*sorted(rng.sample(range(1, head + 1), 8)), head]:
            then = replay(entries, upto=position).knowledge
            for item_id, record in sorted(then.items.items()):
                props = record.materialise()
                got = gql(client, AS_OF, {"id": item_id, "n": position})
                assert "errors" not in got, (position, item_id, got)
                item = got["data"]["item"]
                expected = {"id": props["id"], "status": props["status"], "source": props["source"],
                            "rank": props["rank"], "support": [str(s) for s in props["support"]],
                            "premises": props["premises"], "summary": props["summary"], "why": props.get("why") or "",
                            "learnedAt": props["learned_at"], "confirmedAt": props.get("confirmed_at"),
                            "promoted": bool(props.get("promoted"))}
                assert item == expected, (position, item_id)
                checked += 1
                statuses.add(item["status"])
        assert checked > 100 and "retracted" in statuses and len(statuses) >= 2
        some = sorted(then.items)[0]
        for position in (then.items[some].learned_at, head):
            reasons = replay(entries, upto=position).knowledge.stale_reasons(some)
            stale = gql(client, 'query($id: String!, $n: Long) { item(id: $id, asOf: $n) { id stale staleReasons } }',
                        {"id": some, "n": position})
            assert stale == {"data": {"item": {"id": some, "stale": bool(reasons), "staleReasons": reasons}}}
        before = gql(client, AS_OF, {"id": some, "n": 0})
        assert before["data"]["item"] is None and "at position 0" in before["errors"][0]["message"]
    finally:
        service.close()


WALK = """query($ids: [String!]!, $n: Long) {
  upstream(ids: $ids, asOf: $n) { id depth item { status } }
  dependents(ids: $ids, asOf: $n) { id depth item { status } }
  component(ids: $ids, asOf: $n) { id depth } }"""
WALK_LEVELS = """query($ids: [String!]!, $n: Long, $d: Int) {
  upstream(ids: $ids, asOf: $n, maxDepth: $d) { id depth }
  dependents(ids: $ids, asOf: $n, maxDepth: $d) { id depth }
  component(ids: $ids, asOf: $n, maxDepth: $d) { id depth } }"""


def reference_walk(items: dict[str, object], start: str, upstream: bool, downstream: bool,
                   same_key: bool) -> set[tuple[str, int]]:
    """Breadth-first over what a replay holds: every assertion's premises (the graph's DERIVED_FROM edges
    are never taken back) and same-key competitors."""
    premises = {i: set(r.premises(live_only=False)) for i, r in items.items()}  # type: ignore[attr-defined]
    derived: dict[str, set[str]] = {}
    for item, ps in premises.items():
        for p in ps:
            derived.setdefault(p, set()).add(item)
    by_key: dict[str, set[str]] = {}
    for item, r in items.items():
        if r.key is not None:  # type: ignore[attr-defined]
            by_key.setdefault(r.key, set()).add(item)  # type: ignore[attr-defined]
    seen, frontier, found, depth = {start}, [start], set(), 0
    while frontier:
        depth += 1
        nxt = []
        for node in frontier:
            near: set[str] = set()
            if upstream:
                near |= {p for p in premises.get(node, ()) if p in items}
            if downstream:
                near |= derived.get(node, set())
            if same_key and items[node].key is not None:  # type: ignore[attr-defined]
                near |= by_key[items[node].key] - {node}  # type: ignore[attr-defined]
            for other in sorted(near - seen):
                seen.add(other)
                nxt.append(other)
                found.add((other, depth))
        frontier = nxt
    return found


def test_walks_as_of_any_position_are_the_replay_s(backend: Backend) -> None:
    from benchmarks.service_shape import mix

    service = Service.open(backend.whole_state_settings())
    try:
        for plan in mix(service, 300, 9):
            service.journal.write("loader", plan)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(7)
        walked = 0
        cut_short = False
        for position in [*sorted(rng.sample(range(40, head + 1), 5)), head]:
            then = replay(entries, upto=position).knowledge
            for start in rng.sample(sorted(then.items), min(12, len(then.items))):
                got = gql(client, WALK, {"ids": [start], "n": position})
                assert "errors" not in got, (position, start, got)
                data = got["data"]
                assert {(s["id"], s["depth"]) for s in data["upstream"]} == \
                    reference_walk(then.items, start, True, False, True), (position, start)
                assert {(s["id"], s["depth"]) for s in data["dependents"]} == \
                    reference_walk(then.items, start, False, True, False), (position, start)
                assert {(s["id"], s["depth"]) for s in data["component"]} == \
                    reference_walk(then.items, start, True, True, True), (position, start)
                for step in data["upstream"] + data["dependents"]:
                    assert step["item"]["status"] == then.items[step["id"]].status, (position, step)
                walked += len(data["component"])
                # At most d levels: the same walk cut at depth d, as of the position and (at the head) now.
                deepest = max((s["depth"] for s in data["component"]), default=0)
                for d in sorted({1, 2, max(deepest - 1, 1)}):
                    for n in (position, None) if position == head else (position,):
                        got = gql(client, WALK_LEVELS, {"ids": [start], "n": n, "d": d})
                        assert "errors" not in got, (position, start, d, got)
                        for field, whole in (("upstream", data["upstream"]), ("dependents", data["dependents"]),
                                             ("component", data["component"])):
                            assert {(s["id"], s["depth"]) for s in got["data"][field]} == \
                                {(s["id"], s["depth"]) for s in whole if s["depth"] <= d}, (position, start, d, n)
                            cut_short |= len(got["data"][field]) < len(whole)
        assert walked > 100  # the walks reached far at many positions
        assert cut_short  # some walk went deeper than the levels asked
    finally:
        service.close()
