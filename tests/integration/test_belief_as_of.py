"""`belief(id, asOf: N)` on every backend (issue 11, part 4 for beliefs): answered from the graph's
history, it equals the belief a replay of the journal up to N holds, at random positions of a random
history of the realistic mix (beliefs with evidence from several families, statements, retractions)."""

from __future__ import annotations

import math
import random
from collections import Counter

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.graphql_client import gql

AS_OF = """query($id: String!, $n: Long) { belief(id: $id, asOf: $n) {
  id status confidence version
  evidence { id weight retracted }
  breakdown { confidence }
  families { id rows liveRows }
  versions { version confidence }
} }"""


def test_a_belief_as_of_any_position_is_the_replay_s(backend: Backend) -> None:
    from benchmarks.service_shape import mix

    service = Service.open(backend.whole_state_settings())
    try:
        for plan in mix(service, 260, 5):
            service.journal.write("loader", plan)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(20261201)
        checked = 0
        for position in [*sorted(rng.sample(range(1, head + 1), 8)), head]:
            then = replay(entries, upto=position).beliefs
            for belief_id, record in sorted(then.beliefs.items()):
                got = gql(client, AS_OF, {"id": belief_id, "n": position})
                assert "errors" not in got, (position, belief_id, got)
                b = got["data"]["belief"]
                props = record.node_props()
                assert (b["status"], b["version"]) == (props["status"], props["version"]), (position, belief_id)
                assert math.isclose(b["confidence"], props["confidence"], rel_tol=1e-12)
                assert math.isclose(b["breakdown"]["confidence"], props["confidence"], rel_tol=1e-12)
                rows = sorted((r for r in then.rows.values() if r.belief == belief_id), key=lambda r: r.id)
                assert sorted((e["id"], e["weight"], e["retracted"]) for e in b["evidence"]) == \
                    [(r.id, r.weight, r.retracted) for r in rows], (position, belief_id)
                families = Counter(r.family for r in rows)
                live = Counter(r.family for r in rows if not r.retracted)
                assert sorted((f["id"], f["rows"], f["liveRows"]) for f in b["families"]) == \
                    sorted((f, n, live[f]) for f, n in families.items()), (position, belief_id)
                assert [v["version"] for v in b["versions"]] == list(range(1, props["version"] + 1))
                checked += 1
        assert checked > 50  # the sample reached many beliefs at many positions
        # Before its creation a belief is not there; past the head is an error that says so.
        first = sorted(then.beliefs, key=lambda i: then.beliefs[i].node_props()["created_seq"])[-1]
        created = then.beliefs[first].node_props()["created_seq"]
        missing = gql(client, AS_OF, {"id": first, "n": created - 1})
        assert missing["data"]["belief"] is None and "at position" in missing["errors"][0]["message"]
        past = gql(client, AS_OF, {"id": first, "n": head + 1})
        assert "is not in the journal" in past["errors"][0]["message"]
    finally:
        service.close()


def test_the_readme_s_time_travel_query_answers(client: TestClient) -> None:
    import re
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2].joinpath("README.md").read_text()
    query = next(block for block in re.findall(r"```graphql\n(.*?)```", readme, re.S) if "asOf: $n" in block)
    made = gql(client, 'mutation { createBelief(proposition: "the pump is on", evidence: [{weight: 0.6, '
                       'family: "ann"}]) { belief { id } } }')["data"]["createBelief"]["belief"]["id"]
    n = gql(client, "{ head { seq } }")["data"]["head"]["seq"]
    added = gql(client, 'mutation($b: String!) { addEvidence(belief: $b, evidence: {weight: 0.7, family: "sensor", '
                        'direction: against}) { belief { id } } }', {"b": made})
    assert "errors" not in added, added
    head = gql(client, "{ head { seq } }")["data"]["head"]["seq"]
    answer = gql(client, query, {"b": made, "node": made, "n": n, "head": head})
    assert "errors" not in answer, answer
    data = answer["data"]
    assert [f["id"] for f in data["then"]["families"]] == ["ann"]
    assert data["now"]["confidence"] < data["then"]["confidence"]  # the sensor's evidence against came later
    assert data["history"]["edges"][0]["node"]["op"] == "belief.create"
    assert data["changes"]["totalCount"] >= 2  # the belief and the new evidence row at least
