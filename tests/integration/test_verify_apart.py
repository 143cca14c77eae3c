"""The API's verify runs in a process of its own (graph_service.verifying), on every backend: its report
equals the in-process check, a tampered store is found there, and the service takes the verdict."""

from __future__ import annotations

import pytest

from graph_service.errors import JournalBroken
from graph_service.journal.notes import plan_note
from graph_service.service import Service
from graph_service.verifying import FullReport, verify_in_child
from tests.backends import Backend


def test_the_child_reports_what_the_in_process_check_reports(backend: Backend) -> None:
    service = Service.open(backend.settings())
    try:
        for i in range(5):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        apart, here = service.verify_apart(), service.verify()
        assert apart.ok and apart == here
        assert apart.chain.checked == 5 and apart.replay_fingerprint == apart.graph_fingerprint
        assert FullReport.from_json(apart.as_json()) == apart
    finally:
        service.close()


def test_a_tampered_entry_is_found_apart_and_writes_are_refused_until_repaired(backend: Backend) -> None:
    service = Service.open(backend.settings())
    try:
        for i in range(3):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        backend.raw(service.graph, "MATCH (e:Entry {seq: 2}) SET e.payload = replace(e.payload, 'note 1', 'note 9')")
        report = service.verify_apart()
        assert not report.ok and report.chain.first_bad == 2, report
        with pytest.raises(JournalBroken, match="position 2"):
            service.journal.write("ann", lambda: plan_note("after the tampering"))
        backend.raw(service.graph, "MATCH (e:Entry {seq: 2}) SET e.payload = replace(e.payload, 'note 9', 'note 1')")
        assert service.verify_apart().ok
        assert service.journal.write("ann", lambda: plan_note("after the repair")).entry.seq == 4
    finally:
        service.close()


def test_a_child_that_cannot_connect_says_so() -> None:
    class Nowhere:
        def connection(self) -> dict[str, str]:
            return {"backend": "falkordb", "socket": "/nonexistent/falkordb.sock", "graph": "graph_service"}

    with pytest.raises(RuntimeError, match="the verifying process exited 1"):
        verify_in_child(Nowhere())  # type: ignore[arg-type]
