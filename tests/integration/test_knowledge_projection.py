"""The knowledge store through the real service on each backend: after every write the
graph's projection has the fingerprint of a pure replay of the journal, and the chain verifies."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.state import replay
from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.falkordb_server import EmbeddedFalkorDB
from graph_service.storage.port import GraphPort
from tests.backends import Backend

SUBJECTS = ("door", "gate")
RELATIONS = ("colour", "width")
SOURCES = ("person", "outcome", "spec", "verified")
_graph_names = itertools.count()


class FreshStores:
    """Empty stores, many per module: FalkorDB graphs by name on one embedded server; on Neo4j
    (one store per server in Community) the session's store, emptied for each."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._server: EmbeddedFalkorDB | None = None
        if backend.neo4j is None:
            self._server = EmbeddedFalkorDB(backend.data_dir).start()

    def graph(self) -> GraphPort:
        if self._server is not None:
            return FalkorDBGraph(socket_path=self._server.socket_path, graph=f"k{next(_graph_names)}")
        self.backend.wipe()
        return self.backend.open_graph()

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()


@pytest.fixture(scope="module")
def server(module_backend: Backend) -> Iterator[FreshStores]:
    stores = FreshStores(module_backend)
    try:
        yield stores
    finally:
        stores.close()


def fresh_service(server: FreshStores) -> Service:
    service = Service(server.graph())
    service.journal.open()
    return service


def assert_projection_equals_replay(service: Service) -> None:
    entries = list(service.journal.entries_after(0))
    expected = replay(entries)
    assert service.graph_fingerprint() == expected.fingerprint() == service.state.fingerprint()
    assert service.journal.verify().ok


Step = tuple[str, Any]

adds = st.tuples(st.just("add"), st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(RELATIONS),
                                          st.integers(0, 2), st.sampled_from(SOURCES), st.integers(0, 2)))
steps = st.lists(
    st.one_of(
        adds, adds, adds,  # weighted: most steps add, so keys compete and premises chain
        st.tuples(st.just("retract"), st.integers(0, 50)),
        st.tuples(st.just("rollback"), st.integers(0, 50)),
        st.tuples(st.just("flag"), st.integers(0, 50)),
        st.tuples(st.just("end_flag"), st.integers(0, 50)),
        st.tuples(st.just("resolve"), st.integers(0, 50)),
        st.tuples(st.just("tick"), st.integers(0, 150)),
    ),
    min_size=4,
    max_size=20,
)


def plan_step(service: Service, step: Step) -> Any:
    """The plan of one random step against the current state, or None when it has no target."""
    k = service.state.knowledge
    live = sorted(i for i, rec in k.items.items() if rec.live())
    name, arg = step
    if name == "add":
        s, r, o, source, n_premises = arg
        raw: dict[str, Any] = {"kind": "fact", "body": {"s": s, "r": r, "o": o}, "source": source,
                               "derived_from": live[-n_premises:] if n_premises else []}
        if source == "verified":
            raw["of"] = "decision-1"
        return lambda: planning.plan_add(k, raw, by="prop")
    if name == "tick":
        return lambda: planning.plan_tick(k, arg)
    if name == "resolve":
        disputes = k.disputes()
        if not disputes:
            return None
        d = disputes[arg % len(disputes)]
        return lambda: planning.plan_resolve(k, d["key"], json.loads(d["values"][arg % len(d["values"])]))
    if name == "end_flag":
        pending = sorted(f for f, rec in k.flags.items() if rec.pending)
        return (lambda: planning.plan_end_flag(k, pending[arg % len(pending)])) if pending else None
    if not live:
        return None
    target = live[arg % len(live)]
    if name == "flag":
        return lambda: planning.plan_flag(k, why="drift", ids=[target])
    if name == "retract":
        return lambda: planning.plan_retract(k, target, "wrong")
    return lambda: planning.plan_rollback(k, target, "undo")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps)
def test_projection_equals_replay_after_every_step(server: FreshStores, sequence: list[Step]) -> None:
    service = fresh_service(server)
    try:
        statuses: set[str] = set()
        for step in sequence:
            plan = plan_step(service, step)
            if plan is None:
                continue
            head = service.journal.stored_head()["seq"]
            try:
                service.journal.write("prop", plan)
            except UserError:
                assert service.journal.stored_head()["seq"] == head  # refused input wrote nothing
            assert_projection_equals_replay(service)
            statuses |= {rec.status for rec in service.state.knowledge.items.values()}
            if step[0] == "retract":
                entries = list(service.journal.entries_after(0))
                target = entries[-1].payload["id"]
                assert service.state.knowledge.fingerprint() == replay(entries, skip=[target]).knowledge.fingerprint()
        event(f"statuses seen: {sorted(statuses)}")
        event(f"entries: {min(service.journal.seq // 5 * 5, 15)}+")
    finally:
        service.graph.close()


def fact(s: str, r: str, o: Any, source: str = "person", **extra: Any) -> dict[str, Any]:
    return {"kind": "fact", "body": {"s": s, "r": r, "o": o}, "source": source, **extra}


def test_a_scenario_on_every_backend(graph: GraphPort) -> None:
    """Adds, a dispute and its resolution, a cascade, walks in Cypher: same on every backend."""
    service = Service(graph)
    service.journal.open()
    k = service.state.knowledge
    write = service.journal.write
    a = write("ann", lambda: planning.plan_add(k, fact("abt:1", "same_as", "buy:2"), by="ann")).result["id"]
    b = write("ann", lambda: planning.plan_add(k, fact("abt:1", "brand", "acme", derived_from=[a]), by="ann")).result
    c = write("bob", lambda: planning.plan_add(k, fact("abt:1", "brand", "apex", derived_from=[a]), by="bob")).result
    assert b["status"] == "active" and c["status"] == "disputed" and k.status(b["id"]) == "disputed"
    dispute = k.disputes()[0]
    assert sorted(dispute["items"]) == sorted([b["id"], c["id"]])
    from graph_service.storage.walks import ITEM_DEPENDENTS, ITEM_UPSTREAM, walk

    assert {r.id for r in walk(graph, [a], ITEM_DEPENDENTS)} == {b["id"], c["id"]}
    assert {(r.id, r.step) for r in walk(graph, [b["id"]], ITEM_UPSTREAM)} == {(a, "DERIVED_FROM"),
                                                                              (c["id"], "SAME_KEY")}
    write("ann", lambda: planning.plan_resolve(k, dispute["key"], "acme"))
    assert (k.status(b["id"]), k.status(c["id"])) == ("active", "refuted")
    changes = write("ann", lambda: planning.plan_retract(k, a, "wrong label")).result
    assert {i: after for i, (_, after) in changes.items()} == {a: "retracted", b["id"]: "retracted",
                                                               c["id"]: "retracted"}
    assert_projection_equals_replay(service)
    rows = {row["item"]["id"]: row["item"]["status"] for row in graph.run("items_by_id", {"ids": [a, b["id"]]})}
    assert rows == {a: "retracted", b["id"]: "retracted"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_long_random_histories_stay_equal_to_their_replay(server: FreshStores, seed: int) -> None:
    """Longer than hypothesis likes to go: 120 steps with most of them adds, so disputes, refutations,
    cascades and expiries pile up; the projection is checked after every step."""
    import random

    rng = random.Random(seed)
    service = fresh_service(server)
    statuses: set[str] = set()
    try:
        for _ in range(120):
            name = rng.choice(["add"] * 5 + ["retract", "rollback", "flag", "end_flag", "resolve", "tick"])
            arg: Any = (rng.choice(SUBJECTS), rng.choice(RELATIONS), rng.randint(0, 2), rng.choice(SOURCES),
                        rng.randint(0, 2)) if name == "add" else rng.randint(0, 150)
            plan = plan_step(service, (name, arg))
            if plan is None:
                continue
            with contextlib.suppress(UserError):
                service.journal.write("prop", plan)
            assert_projection_equals_replay(service)
            statuses |= {rec.status for rec in service.state.knowledge.items.values()}
    finally:
        service.graph.close()
    assert {"active", "disputed", "refuted", "retracted"} <= statuses  # the history exercised the rules
