"""Pages of beliefs by confidence on every backend: walked with small pages both ways under filters, they
give every belief once, in the order of (confidence in units of 1e-9, id), with ties."""

from __future__ import annotations

import random
from typing import Any

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.beliefs.as_of import CONFIDENCE_KEY_UNITS, confidence_key
from graph_service.service import Service
from tests.backends import Backend
from tests.integration.graphql_client import gql

PAGE = """query($o: BeliefOrder!, $f: BeliefFilter, $first: Int, $after: String) {
  beliefs(orderBy: $o, filter: $f, first: $first, after: $after) {
    edges { cursor node { id confidence status } } pageInfo { hasNextPage endCursor } } }"""
COUNT = "query($f: BeliefFilter) { beliefs(filter: $f, first: 1) { totalCount } }"


def _walk(client: TestClient, order: str, filter: dict[str, Any] | None, first: int) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        got = gql(client, PAGE, {"o": order, "f": filter, "first": first, "after": after})
        assert "errors" not in got, got
        page = got["data"]["beliefs"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]


def _expected(service: Service, descending: bool, status: str | None = None) -> list[str]:
    beliefs = [b for b in service.state.beliefs.beliefs.values() if status is None or b.status == status]
    return [b.id for b in sorted(beliefs, key=lambda b: ((-1 if descending else 1) * confidence_key(b.confidence),
                                                         b.id))]


def _spread(service: Service, n: int, seed: int) -> None:
    """Beliefs whose confidences spread over the scale, some tied (the same evidence)."""
    rng = random.Random(seed)
    for i in range(n):
        weight = rng.choice([0.05, 0.3, 0.5, 0.5, 0.9, 0.99]) if i % 3 == 0 else round(rng.uniform(0.01, 0.99), 3)
        direction = "against" if rng.random() < 0.3 else "for"
        service.journal.write("tester", lambda i=i, w=weight, d=direction: service.state.beliefs.plan(
            "belief.create", {"proposition": f"claim {i}", "evidence": [
                {"weight": w, "direction": d, "family": f"source-{i % 5}"}]}))


def test_pages_by_confidence_give_every_belief_once_in_order(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        _spread(service, 90, 3)
        ranks = {confidence_key(b.confidence) for b in service.state.beliefs.beliefs.values()}
        assert len(ranks) > 20 and max(ranks) - min(ranks) > CONFIDENCE_KEY_UNITS // 10  # spread, with ties
        client = TestClient(create_app(service.settings, service=service))
        for order, descending in (("CONFIDENCE_DESC", True), ("CONFIDENCE_ASC", False)):
            for first in (1, 7, 500):
                assert _walk(client, order, None, first) == _expected(service, descending), (order, first)
            statuses = {b.status for b in service.state.beliefs.beliefs.values()}
            for status in sorted(statuses):
                assert _walk(client, order, {"status": status}, 4) == _expected(service, descending, status)
        assert gql(client, COUNT, {"f": None})["data"]["beliefs"]["totalCount"] == 90
    finally:
        service.close()
