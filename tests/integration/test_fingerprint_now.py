"""`fingerprint` now is read from the two running sums the graph keeps on its Fingerprint nodes (two lookups,
whatever the store holds), equal to a replay's; a store written before the graph kept the beliefs' sum is
answered from the state, as before."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.state import BELIEFS_FINGERPRINT, replay
from tests.backends import Backend
from tests.integration.graphql_client import gql
from tests.integration.test_beliefs_as_of import written_history

NOW = "{ fingerprint { store knowledge beliefs position } }"


def fingerprint_now(client: TestClient) -> dict[str, object]:
    got = gql(client, NOW)
    assert "errors" not in got, got
    return got["data"]["fingerprint"]


def test_the_fingerprint_now_is_what_the_graph_keeps_and_a_replay_gives(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 80, 5)
        client = TestClient(create_app(service.settings, service=service))
        expected = replay(service.journal.entries_after(0)).fingerprints()
        assert fingerprint_now(client) == expected == service.state.fingerprints()
        assert expected["position"] == service.journal.seq

        # Single writes that move beliefs from every side: a retraction takes the evidence resting on an item.
        rooted = sorted({r for row in service.state.beliefs.rows.values() if row.root_kind == "item"
                         and not row.retracted for r in row.root_ids})
        assert rooted, "the history rests evidence on items"
        moved = 0
        for item in rooted[:4]:
            before = fingerprint_now(client)
            if service.state.knowledge.status(item) == "retracted":
                continue
            service.journal.write("ann", lambda item=item: planning.plan_retract(service.state.knowledge, item,
                                                                                 "checked"))
            after = fingerprint_now(client)
            assert after == replay(service.journal.entries_after(0)).fingerprints()
            moved += after["beliefs"] != before["beliefs"]
        assert moved > 0, "a retraction moved some belief"

        # The command line's fingerprint: a service only connected reads the same two sums, replaying nothing.
        connected = Service(service.graph, service.settings)
        connected.journal.prepare()
        assert connected.fingerprints() == fingerprint_now(client)
        assert not connected.started and connected.state.position == 0

        # What it reads is the graph's: a tampered sum shows (verify would name it), the state's does not.
        backend.raw(service.graph, "MATCH (f:Fingerprint {id: $id}) SET f.total = $t",
                    {"id": BELIEFS_FINGERPRINT, "t": format(1, "064x")})
        tampered = fingerprint_now(client)
        assert tampered["beliefs"] != service.state.fingerprints()["beliefs"]
        assert tampered["knowledge"] == service.state.fingerprints()["knowledge"]
    finally:
        service.close()


def test_a_store_that_does_not_keep_the_beliefs_sum_is_answered_from_its_state(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 40, 6)
        backend.raw(service.graph, "MATCH (h:Head) SET h.keeps = 1")  # as a store written before the sum was kept
        backend.raw(service.graph, "MATCH (f:Fingerprint {id: $id}) DETACH DELETE f", {"id": BELIEFS_FINGERPRINT})
    finally:
        service.close()
    service = Service.open(backend.whole_state_settings())
    try:
        client = TestClient(create_app(service.settings, service=service))
        assert service.journal.keeps == 1
        assert fingerprint_now(client) == replay(service.journal.entries_after(0)).fingerprints()
    finally:
        service.close()


def test_a_start_builds_no_belief_projection_the_graph_holds_and_projects_what_it_lacks(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """A start applies the journal for the state alone where the graph holds what each entry wrote (up to the
    head's projected position), so the beliefs' projections are built only for the entries past it, which it
    writes; the state is a replay's and verify passes."""
    from graph_service.beliefs import state as belief_state

    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 80, 5)
        head = service.journal.seq
    finally:
        service.close()
    lacking = head - 12  # as if the last twelve entries' projections had not landed before a crash
    backend_graph = backend.open_graph()
    try:
        backend.raw(backend_graph, "MATCH (h:Head) SET h.projected = $p", {"p": lacking})
    finally:
        backend_graph.close()
    built: list[int] = []
    project = belief_state.project
    monkeypatch.setattr(belief_state, "project", lambda state, change: built.append(change.seq) or project(
        state, change))
    service = Service.open(backend.whole_state_settings())
    try:
        assert built and all(seq > lacking for seq in built), (lacking, built)  # past it, and only there
        assert service.journal.stored_head()["projected"] == head
        assert service.state.fingerprints() == replay(service.journal.entries_after(0)).fingerprints()
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()
