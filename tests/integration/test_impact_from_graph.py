"""`impact` read from the graph (graph_service.from_graph.impact: the retraction's evaluation and the belief
cascade on scratch states that read what they touch) equals the whole in-memory state's (impact.store_impact)
on every backend, for random retractions and marks of inaccuracy along a history of the realistic mix with
belief-layer writes of every kind (rows on items, observations and beliefs, contradictions, retractions,
corrections); and the API now answers it from the graph, in a worker thread."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.errors import NotFound, UserError
from graph_service.from_graph.impact import impact_from_graph
from graph_service.impact import store_impact
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.graphql_client import gql
from tests.integration.knowledge_histories import write_knowledge_history
from tests.integration.test_beliefs_as_of import written_history

IMPACT = """query($i: [String!], $o: [String!]) { impact(items: $i, observations: $o) {
  items { id before after } supports { id before after }
  beliefs { belief before { status confidence version } after { status confidence version } } } }"""


def contradict_some(service: Service, rng: random.Random, n: int) -> None:
    """Contradictions proposed between beliefs resting on items and others (the mix makes none), so a
    retraction's cascade re-weighs counter rows."""
    beliefs = service.state.beliefs
    on_items = sorted({r.belief for r in beliefs.rows.values() if r.root_kind == "item" and not r.retracted})
    for _ in range(n):
        a, b = rng.choice(on_items), rng.choice(sorted(beliefs.beliefs))
        try:
            service.journal.write("ann", lambda a=a, b=b: beliefs.plan("belief.contradict", {"a": a, "b": b}))
        except UserError:  # itself, or linked already
            continue


@pytest.mark.parametrize("seed", [2, 4])
def test_impact_from_the_graph_is_the_whole_states(backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 400, seed)
        write_knowledge_history(service, 40, seed)
        state, rng = service.state, random.Random(seed)
        contradict_some(service, rng, 12)
        live = sorted(i for i, r in state.knowledge.items.items() if r.live())
        retracted = sorted(i for i, r in state.knowledge.items.items() if not r.live())
        observations = sorted(state._observations)
        seen = {"item beliefs": 0, "observation beliefs": 0, "statuses": 0, "supports": 0, "contradicted": 0}
        for n in range(60):
            items = rng.sample(live, rng.randint(1, 3)) + rng.sample(retracted, min(len(retracted), n % 2))
            marked = rng.sample(observations, rng.randint(0, 2)) if n % 3 else []
            expected = store_impact(state, items)  # items alone, then with the marks
            assert impact_from_graph(service.graph, service.journal.seq, items) == expected, items
            seen["item beliefs"] += bool(expected.beliefs)
            seen["statuses"] += bool(expected.items)
            seen["supports"] += bool(expected.supports)
            expected = store_impact(state, items, marked)
            got = impact_from_graph(service.graph, service.journal.seq, items, marked)
            assert got == expected, (items, marked)
            seen["observation beliefs"] += bool(marked) and len(expected.beliefs) > len(
                store_impact(state, items).beliefs)
            seen["contradicted"] += any(state.beliefs.partners(b) for b in expected.beliefs)
        # The samples reached every kind of change the comparison is about.
        assert all(seen.values()), seen
    finally:
        service.close()


def test_unknown_ids_are_named_from_the_graph(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 60, 3)
        item = sorted(service.state.knowledge.items)[0]
        for items, observations, field in (([item, "nope"], [], "items"), ([item], ["nope"], "observations")):
            with pytest.raises(NotFound) as refused:
                impact_from_graph(service.graph, service.journal.seq, items, observations)
            assert refused.value.field == field and "nope" in str(refused.value)
    finally:
        service.close()


def test_the_api_answers_impact_from_the_graph_in_a_worker_thread(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    from graph_service.api import impact_types

    where: list[str] = []

    def from_graph(*args: Any) -> Any:
        try:
            asyncio.get_running_loop()
            where.append("the event loop")
        except RuntimeError:  # no loop runs in this thread
            where.append("a worker thread")
        return impact_from_graph(*args)

    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 200, 5)
        state = service.state
        items = sorted(i for i, r in state.knowledge.items.items() if r.live())[:3]
        observations = sorted(state._observations)[:2]
        expected = store_impact(state, items, observations)
        assert expected.items and expected.beliefs, expected
        monkeypatch.setattr(impact_types, "impact_from_graph", from_graph)
        monkeypatch.setattr(impact_types, "store_impact", None)  # the in-memory state is not what answers
        client = TestClient(create_app(service.settings, service=service))
        got = gql(client, IMPACT, {"i": items, "o": observations})
        assert "errors" not in got, got
        assert where == ["a worker thread"], where
        found = got["data"]["impact"]
        assert {(c["id"], c["before"], c["after"]) for c in found["items"]} == {
            (i, b, a) for i, (b, a) in expected.items.items()}
        assert {c["belief"]: (c["before"], c["after"]) for c in found["beliefs"]} == {
            b: ({k: before[k] for k in ("status", "confidence", "version")} if before else None,
                {k: after[k] for k in ("status", "confidence", "version")})
            for b, (before, after) in expected.beliefs.items()}
    finally:
        service.close()
