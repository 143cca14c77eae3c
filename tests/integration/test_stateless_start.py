"""A start that replays nothing (Journal._replay_all of a stateless journal), on every backend: a service holding
no domain's state (all four options on) starts from the position the graph holds, read from O(log n) stored
entries, with the same head, store clock and Merkle root a replay computes; it applies and projects the entries
past that position (a crash between an append and its projection); and the chain is checked in a process of its
own, whose finding of a break refuses writes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings
from graph_service.errors import JournalBroken
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.in_graph import add_item
from tests.integration.knowledge_histories import write_knowledge_history

ALL_IN_GRAPH = {"knowledge": "graph", "beliefs": "graph", "stream": "graph", "questions": "graph"}


def _written(backend: Backend, n: int = 400) -> dict[str, Any]:
    """A history of every domain's writes, written holding the whole state; what a replay of it gives."""
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, n, 31)
        j = service.journal
        return {"seq": j.seq, "hash": j.hash, "clock": j.store_clock, "tree": j.tree_head(),
                "fingerprints": service.fingerprints()}
    finally:
        service.close()


def _started(settings: Settings) -> tuple[Service, list[tuple[str, bool]]]:
    """A service started on `settings`, with every statement it ran and whether it ran on the starting thread."""
    service = Service.connect(settings)
    ran: list[tuple[str, bool]] = []
    run, starter = service.graph.run, threading.get_ident()

    def recorded(name: str, *args: Any, **kwargs: Any) -> Any:
        ran.append((name, threading.get_ident() == starter))
        return run(name, *args, **kwargs)

    service.graph.run = recorded  # type: ignore[method-assign]
    service.start()
    return service, ran


def test_a_start_holding_nothing_reads_no_entry_before_the_graphs_position(backend: Backend) -> None:
    replayed = _written(backend)
    service, ran = _started(backend.settings(**ALL_IN_GRAPH))
    try:
        journal = service.journal
        assert service.holds_nothing and journal.stateless
        started = [name for name, here in ran if here]
        assert started.count("entries_at") == 1 and started.count("entries_page") == 1, started  # the tail: empty
        assert (journal.seq, journal.hash, journal.store_clock) == (replayed["seq"], replayed["hash"],
                                                                     replayed["clock"])
        assert service.state.position == replayed["seq"]
        assert journal.audit is not None and journal.audit.done.wait(120)
        assert journal.audit.finding is None and journal.audit.checked == replayed["seq"]
        ready = TestClient(create_app(service.settings, service=service)).get("/readyz")
        assert ready.status_code == 200 and ready.json()["chain_check"] == {
            "from": 0, "checked": replayed["seq"], "upto": replayed["seq"], "done": True}
        assert journal.tree_head() == replayed["tree"]  # the frontier read back gives the replay's root
        assert service.fingerprints() == replayed["fingerprints"]
        # It writes on: the next entry chains to the head, and the Merkle tree and the clock go on from there.
        journal.write("ann", lambda: plan_note("after a start that replayed nothing"))
        raw = {"kind": "fact", "body": {"s": "stateless", "r": "is", "o": "yes"}, "source": "person"}
        add_item(service, raw)
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_start_holding_nothing_applies_and_projects_the_entries_past_the_graphs_position(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    service = Service.open(backend.whole_state_settings())  # the writes, holding the whole state
    try:  # a history, then writes whose projections never land (as before a crash): a statement, a row, a fact
        write_knowledge_history(service, 200, 37)
        lacking = service.journal.seq
        monkeypatch.setattr(service.journal, "_write_projections", lambda projections: False)
        state = service.state
        said = {"text": "the rock is heavy", "speaker": "ann", "tick": 1, "to": "bob"}
        service.journal.write("ann", lambda: state.statements.plan("statement.say", said))
        service.journal.write("ann", lambda: state.statements.plan("statement.say", {**said, "text": "it is"}))
        service.journal.write("ann", lambda: state.stream.plan("observer.declare", {"observer": "bob"}))
        service.journal.write("ann", lambda: state.stream.plan("stream.observe", {
            "observer": "bob", "tick": 2, "kind": "seen", "subject": "rock"}))
        raw = {"kind": "fact", "body": {"s": "rock", "r": "weight", "o": "heavy"}, "source": "person"}
        service.journal.write("ann", lambda: planning.plan_add(state.knowledge, raw, by="ann"))
        assert service.journal.stored_head()["projected"] == lacking
        replayed = {"seq": service.journal.seq, "fingerprints": replay_fingerprints(service)}
    finally:
        monkeypatch.undo()
        service.close()
    service, ran = _started(backend.settings(**ALL_IN_GRAPH))
    try:
        assert [name for name, _ in ran].count("entries_at") == 1  # where it resumed from: the graph's position
        assert service.journal.stateless and service.journal.projected == replayed["seq"]
        assert service.journal.stored_head()["projected"] == replayed["seq"]
        assert service.journal.audit is not None and service.journal.audit.upto == lacking
        assert service.fingerprints() == replayed["fingerprints"]
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def replay_fingerprints(service: Service) -> dict[str, Any]:
    """The fingerprints a replay of the service's journal gives."""
    return replay(service.journal.entries_after(0)).fingerprints()


def test_a_break_the_background_check_finds_refuses_writes(backend: Backend) -> None:
    _written(backend, 120)
    graph = backend.open_graph()
    try:
        by = backend.raw(graph, "MATCH (e:Entry {seq: 40}) RETURN e.by")[0][0]
        backend.raw(graph, "MATCH (e:Entry {seq: 40}) SET e.by = 'mallory'")
    finally:
        graph.close()
    service, _ = _started(backend.settings(**ALL_IN_GRAPH))
    try:
        journal = service.journal
        assert journal.stateless and journal.audit is not None and journal.audit.done.wait(120)
        assert journal.broken is not None and journal.broken.position == 40, journal.broken
        # What the store believes is its sound prefix's, as a start holding the whole state folds it.
        assert service.fingerprints() == replay(journal.entries_after(0, limit=39)).fingerprints()
        with pytest.raises(JournalBroken, match="broken at position 40"):
            journal.write("ann", lambda: plan_note("refused"))
        # Repaired, and checked again: writable again (what the background check found no longer holds).
        backend.raw(service.graph, "MATCH (e:Entry {seq: 40}) SET e.by = $by", {"by": by})
        journal.take_verdict(journal.verify())
        assert journal.broken is None
        journal.write("ann", lambda: plan_note("after the repair"))
        assert service.verify().ok
    finally:
        service.close()


def test_a_start_checks_the_chain_on_from_where_the_last_check_found_it_sound(backend: Backend) -> None:
    first = _written(backend, 120)["seq"]

    def started_and_checked() -> tuple[Service, dict[str, Any]]:
        service, _ = _started(backend.settings(**ALL_IN_GRAPH))
        audit = service.journal.audit
        assert audit is not None and audit.done.wait(120)
        return service, audit.status()

    service, status = started_and_checked()
    try:  # the first start checks it all, and keeps how far it found it sound
        assert status == {"from": 0, "checked": first, "upto": first, "done": True}
        assert backend.raw(service.graph, "MATCH (c:ChainCheck) RETURN c.seq")[0][0] == first
        for i in range(3):
            service.journal.write("ann", lambda i=i: plan_note(f"after the check {i}"))
    finally:
        service.close()
    service, status = started_and_checked()
    try:  # the next checks only what was appended since
        assert status == {"from": first, "checked": first + 3, "upto": first + 3, "done": True}
        assert backend.raw(service.graph, "MATCH (c:ChainCheck) RETURN count(c), max(c.seq)")[0] == [1, first + 3]
        by = backend.raw(service.graph, "MATCH (e:Entry {seq: 40}) RETURN e.by")[0][0]
        backend.raw(service.graph, "MATCH (e:Entry {seq: 40}) SET e.by = 'mallory'")
    finally:
        service.close()
    service, status = started_and_checked()
    try:  # nothing appended: nothing to read; a break before the checked position is for a full verify to find
        assert status == {"from": first + 3, "checked": first + 3, "upto": first + 3, "done": True}
        assert service.journal.broken is None
        assert service.verify().chain.first_bad == 40
        backend.raw(service.graph, "MATCH (e:Entry {seq: 40}) SET e.by = $by", {"by": by})
        # The entry the check stopped at no longer has the hash it saw (the store was rewritten): it checks it all.
        backend.raw(service.graph, "MATCH (c:ChainCheck) SET c.hash = 'rewritten'")
    finally:
        service.close()
    service, status = started_and_checked()
    try:
        assert status == {"from": 0, "checked": first + 3, "upto": first + 3, "done": True}
        assert service.journal.broken is None
    finally:
        service.close()
