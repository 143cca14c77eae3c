"""The journal on every backend: append, page, reopen, verify, tamper."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator

import pytest

from graph_service.domain import Draft
from graph_service.errors import Conflict, UserError
from graph_service.journal.chain import GENESIS
from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal
from graph_service.knowledge import planning
from graph_service.state import StoreState, replay
from graph_service.storage.port import GraphPort
from tests.backends import Backend


def open_journal(graph: GraphPort) -> Journal:
    return Journal(graph, [NoteDomain()]).open()


def test_entries_chain_in_order_and_page(graph: GraphPort) -> None:
    journal = open_journal(graph)
    for i in range(25):
        journal.write("ann", lambda i=i: plan_note(f"n{i}"))
    entries = list(journal.entries_after(0))
    assert [e.seq for e in entries] == list(range(1, 26))
    assert entries[0].prev == GENESIS
    assert all(b.prev == a.hash for a, b in itertools.pairwise(entries))
    assert [e.payload["text"] for e in journal.entries_after(10, 5)] == ["n10", "n11", "n12", "n13", "n14"]
    head = journal.stored_head()
    assert (head["seq"], head["hash"], head["projected"]) == (25, entries[-1].hash, 25)
    assert journal.verify().ok


def test_bad_input_writes_nothing(graph: GraphPort) -> None:
    journal = open_journal(graph)
    journal.write("ann", lambda: plan_note("kept"))
    for bad in ["", "   ", "x" * 10_001]:
        with pytest.raises(UserError):
            journal.write("ann", lambda bad=bad: plan_note(bad))
    with pytest.raises(UserError, match="by"):
        journal.write("", lambda: plan_note("no author"))
    assert journal.stored_head()["seq"] == 1
    assert [e.payload["text"] for e in journal.entries_after(0)] == ["kept"]


def test_a_reopened_journal_resumes(backend: Backend) -> None:
    graph = backend.open_graph()
    journal = open_journal(graph)
    first = journal.write("ann", lambda: plan_note("before restart")).entry
    graph.close()
    graph = backend.open_graph()
    try:
        journal = open_journal(graph)
        assert (journal.seq, journal.hash) == (1, first.hash)
        second = journal.write("bob", lambda: plan_note("after restart")).entry
        assert second.prev == first.hash and journal.verify().ok
    finally:
        graph.close()


def test_a_tampered_payload_is_named(graph: GraphPort) -> None:
    journal = open_journal(graph)
    for i in range(6):
        journal.write("ann", lambda i=i: plan_note(f"n{i}"))
    # Someone edits entry 4 directly in the database, bypassing the service.
    edited = json.dumps({"text": "rewritten"}, separators=(",", ":"))
    if graph.backend == "falkordb":
        graph._graph.query("MATCH (e:Entry {seq: 4}) SET e.payload = $p", {"p": edited})
    else:
        graph._driver.execute_query("MATCH (e:Entry {seq: 4}) SET e.payload = $p", {"p": edited})
    report = journal.verify()
    assert not report.ok and report.first_bad == 4 and "hash" in (report.reason or "")


def test_a_deleted_entry_is_named(graph: GraphPort) -> None:
    journal = open_journal(graph)
    for i in range(4):
        journal.write("ann", lambda i=i: plan_note(f"n{i}"))
    if graph.backend == "falkordb":
        graph._graph.query("MATCH (e:Entry {seq: 2}) DETACH DELETE e")
    else:
        graph._driver.execute_query("MATCH (e:Entry {seq: 2}) DETACH DELETE e")
    report = journal.verify()
    assert not report.ok and report.first_bad == 2


def test_pages_read_on_past_a_missing_position(graph: GraphPort, backend: Backend) -> None:
    """A page gives the entries stored past its start, in order, whatever positions are missing (a damaged
    store): read by a window of positions, a short window is read again as stored."""
    journal = open_journal(graph)
    for i in range(12):
        journal.write("ann", lambda i=i: plan_note(f"n{i}"))
    backend.raw(graph, "MATCH (e:Entry) WHERE e.seq IN [3, 9, 10] DETACH DELETE e")
    assert [e.seq for e in journal.entries_after(0, 5)] == [1, 2, 4, 5, 6]
    assert [e.seq for e in journal.entries_after(6, 2)] == [7, 8]
    assert [e.seq for e in journal.entries_after(8, 2)] == [11, 12]
    assert [e.seq for e in journal.entries_after(0)] == [1, 2, 4, 5, 6, 7, 8, 11, 12]
    assert list(journal.entries_after(12)) == []


def test_a_nul_character_is_kept_in_payloads_and_refused_in_authors(graph: GraphPort) -> None:
    # Regression: FalkorDB cuts a query at NUL. Payloads are stored as JSON (NUL escaped), so they
    # keep it and still verify; an author is stored as it is, so a NUL there is refused.
    journal = open_journal(graph)
    journal.write("ann", lambda: plan_note("a\x00b"))
    with pytest.raises(UserError, match="NUL"):
        journal.write("an\x00n", lambda: plan_note("fine"))
    assert [e.payload["text"] for e in journal.entries_after(0)] == ["a\x00b"]
    assert journal.stored_head()["seq"] == 1 and journal.verify().ok


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"text": "x", "n": 10**30}, "payload.n: 1000000000000000000000000000000 is outside the integers JSON"),
        ({"text": "x", "list": [1, -(2**63) - 1]}, "payload.list[1]:"),
        ({"text": "x", "n": 2**53}, "payload.n: 9007199254740992 is outside the integers JSON holds exactly"),
        ({"text": "bad \ud800 text"}, "payload.text: the text holds an unpaired surrogate"),
    ],
)
def test_values_a_backend_would_change_are_refused(graph: GraphPort, payload: dict, message: str) -> None:
    # Regression: FalkorDB saturated integers beyond 64 bits (the graph then differed from the
    # journal for good), and a lone surrogate failed as an internal error. Since entries are hashed
    # as RFC 8785 (whose numbers are IEEE-754 doubles), integers beyond ±(2^53 - 1) are refused too:
    # every other language's verifier would hash them as a different number.
    from graph_service.domain import Draft

    journal = open_journal(graph)
    with pytest.raises(UserError, match=re.escape(message)):
        journal.write("ann", lambda: Draft("note", payload))
    with pytest.raises(UserError, match="by must be UTF-8"):
        journal.write("\ud800", lambda: plan_note("fine"))
    journal.write("ann", lambda: Draft("note", {"text": "edge", "n": 2**53 - 1, "m": -(2**53 - 1)}))
    assert journal.stored_head()["seq"] == 1 and journal.verify().ok


def test_a_failed_projection_is_repaired_by_the_next_catch_up(graph: GraphPort) -> None:
    # Regression: after one failed projection statement every later projection was dropped
    # silently (the position check failed) until a restart.
    from graph_service.knowledge import planning
    from graph_service.service import Service

    service = Service(graph)
    service.journal.open()
    real_run = graph.run
    failures = iter([RuntimeError("the backend dropped the connection")])

    def flaky_run(name: str, params: dict | None = None) -> list[dict]:
        if name == "project_entries":
            error = next(failures, None)
            if error is not None:
                raise error
        return real_run(name, params)

    replays: list[int] = []
    replay_all = service.journal._replay_all
    service.journal._replay_all = lambda: (replays.append(service.journal.seq), replay_all())[1]  # type: ignore[method-assign]
    graph.run = flaky_run  # type: ignore[method-assign]
    try:
        for o in range(3):  # the first write's projection fails; the entry is durable all the same
            raw = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": o}, "source": "outcome"}
            done = service.journal.write(
                "ann", lambda raw=raw: planning.plan_add(service.state.knowledge, raw, by="ann"))
            assert done.entry.seq == o + 1
    finally:
        graph.run = real_run  # type: ignore[method-assign]
    service.journal.catch_up()
    head = service.journal.stored_head()
    assert head["projected"] == head["seq"] == 3
    assert replays == []  # written from the projection kept (by the next write's catch-up): no replay
    assert service.verify().ok
    rows = graph.run("items_by_id", {"ids": sorted(service.state.knowledge.items)})
    assert sorted(r["item"]["status"] for r in rows) == ["active", "refuted", "refuted"]


def test_a_service_only_connected_verifies_without_replaying_into_its_state_unless_the_graph_lags(
        graph: GraphPort) -> None:
    # The command line's verify connects without starting: verify replays the journal beside its check, and
    # a start replayed it a second time into the service's own state, both held at once.
    from graph_service.service import Service

    writer = Service(graph)
    writer.journal.open()

    def add(o: int) -> None:
        raw = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": o}, "source": "outcome"}
        writer.journal.write("ann", lambda: planning.plan_add(writer.state.knowledge, raw, by="ann"))

    for o in range(3):
        add(o)
    checker = Service(graph)
    checker.journal.prepare()
    report = checker.verify()
    assert report.ok and report.chain.checked == 3
    assert not checker.started and checker.state.position == 0 and not checker.state.knowledge.items

    real_run = graph.run

    def refusing_run(name: str, params: dict | None = None) -> list[dict]:
        if name.startswith("project_"):  # the whole statement or the part that holds the entry's changes
            raise RuntimeError("the backend dropped the connection")
        return real_run(name, params)

    def add_unprojected(o: int) -> None:
        graph.run = refusing_run  # type: ignore[method-assign]
        try:
            add(o)  # durable, its projection lost: the graph lags the journal
        finally:
            graph.run = real_run  # type: ignore[method-assign]
        head = graph.run("head_read")[0]
        assert (head["seq"], head["projected"]) == (o + 1, o)

    add_unprojected(3)
    lagging = Service(graph)
    lagging.journal.prepare()
    fingerprints = lagging.fingerprints()  # starts, and so projects the entry the graph lacks, before it reads
    assert lagging.started and fingerprints == replay(lagging.journal.entries_after(0)).fingerprints()
    assert fingerprints["position"] == 4

    add_unprojected(4)
    lagging = Service(graph)
    lagging.journal.prepare()
    report = lagging.verify()  # starts, and so projects the entry the graph lacks, before it checks
    assert report.ok and report.chain.checked == 5 and lagging.started
    head = graph.run("head_read")[0]
    assert head["seq"] == head["projected"] == 5


def test_a_verifier_that_cannot_keep_what_the_replay_projects_fails_rather_than_blame_an_entry(
        graph: GraphPort, monkeypatch: pytest.MonkeyPatch) -> None:
    from graph_service.jobs import projected_graph
    from graph_service.service import Service

    service = Service(graph)
    service.journal.open()
    for o in range(3):
        raw = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": o}, "source": "outcome"}
        service.journal.write("ann", lambda raw=raw: planning.plan_add(service.state.knowledge, raw, by="ann"))

    def full(self: projected_graph.ProjectedGraph) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(projected_graph, "FLUSH_KEYS", 1)  # merged at every entry
    monkeypatch.setattr(projected_graph.ProjectedGraph, "_flush", full)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        service.verify()
    assert service.journal.broken is None
    assert service.journal.write("ann", lambda: plan_note("still writable")).entry.seq == 4


def test_projections_not_kept_past_the_bound_are_derived_again_by_a_replay(
        graph: GraphPort, monkeypatch: pytest.MonkeyPatch) -> None:
    # The projections a catch-up writes are kept in memory only up to a bound; past it the gap is the
    # replay's to derive again, and the graph ends the same.
    import graph_service.journal.kept_projections as kept_projections

    monkeypatch.setattr(kept_projections, "MAX_KEPT_PROJECTIONS", 1)
    state = StoreState()
    journal = Journal(graph, [state]).open()
    real_run = graph.run
    failing = {"on": True}

    def refusing_run(name: str, params: dict | None = None) -> list[dict]:
        if failing["on"] and name.startswith("project_"):
            raise RuntimeError("the backend refused the projection")
        return real_run(name, params)

    monkeypatch.setattr(graph, "run", refusing_run)
    for o in range(3):
        raw = {"kind": "fact", "body": {"s": "lamp", "r": "is", "o": o}, "source": "outcome"}
        journal.write("ann", lambda raw=raw: planning.plan_add(state.knowledge, raw, by="ann"))
    assert len(journal.unprojected) == 1 and journal.stored_head()["projected"] == 0
    replays: list[int] = []
    replay_all = journal._replay_all
    monkeypatch.setattr(journal, "_replay_all", lambda: (replays.append(journal.seq), replay_all())[1])
    failing["on"] = False
    journal.catch_up()
    assert replays == [3] and journal.stored_head()["projected"] == 3 and len(journal.unprojected) == 0
    assert journal.verify().ok


def test_an_append_whose_answer_was_lost_is_not_written_twice(graph: GraphPort) -> None:
    # A client library may re-send a statement after a dropped connection: the second send finds
    # the head moved (by the first) and answers "lost the race". The entry must count once.
    journal = open_journal(graph)
    real_run = graph.run

    def resend_append(name: str, params: dict | None = None) -> list[dict]:
        rows = real_run(name, params)
        if name == "append_entry":
            return real_run(name, params)  # the re-send: zero rows, the head has moved
        return rows

    graph.run = resend_append  # type: ignore[method-assign]
    try:
        written = journal.write("ann", lambda: plan_note("once"))
    finally:
        graph.run = real_run  # type: ignore[method-assign]
    assert written.entry.seq == 1
    assert [e.payload["text"] for e in journal.entries_after(0)] == ["once"]
    assert journal.verify().ok


@pytest.mark.neo4j
def test_services_starting_together_on_a_new_neo4j_store_all_start(neo4j_backend: Backend) -> None:
    # Regression (found when two writer processes opened one new Neo4j store): concurrent schema
    # set-up deadlocked on Neo4j's schema locks and one of the processes failed to start.
    import threading

    graph = neo4j_backend.open_graph()
    try:
        for row in graph._driver.execute_query("SHOW CONSTRAINTS YIELD name").records:
            graph._driver.execute_query(f"DROP CONSTRAINT `{row['name']}`")
        for row in graph._driver.execute_query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'").records:
            graph._driver.execute_query(f"DROP INDEX `{row['name']}`")
    finally:
        graph.close()
    errors: list[BaseException] = []

    def start() -> None:
        g = neo4j_backend.open_graph()
        try:
            open_journal(g)
        except BaseException as exc:
            errors.append(exc)
        finally:
            g.close()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [], [str(e)[:400] for e in errors]
    check = neo4j_backend.open_graph()
    try:
        names = {r["name"] for r in check._driver.execute_query("SHOW CONSTRAINTS YIELD name").records}
        assert {"entry_seq", "head_id", "item_id"} <= names
        assert open_journal(check).verify().ok
    finally:
        check.close()


def test_concurrent_appends_never_write_a_stale_head(backend: Backend, graph: GraphPort) -> None:
    # Regression (found on Neo4j 5.26): the compare-and-set took the head's lock with
    # `SET h.hash = h.hash`, whose right side is read before the lock; a writer that lost the race
    # wrote the old hash back, so the head named position n with the hash of n-1 and every later
    # append failed as "heavy contention".
    import threading

    open_journal(graph)
    errors: list[BaseException] = []

    def append(name: str) -> None:
        connection = backend.another_connection(graph)
        try:
            journal = open_journal(connection)
            for i in range(60):
                journal.write(name, lambda i=i: plan_note(f"{name}-{i}"))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=append, args=(name,)) for name in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [], [str(e)[:300] for e in errors]
    journal = open_journal(graph)
    entries = list(journal.entries_after(0))
    assert [e.seq for e in entries] == list(range(1, 181))
    head = journal.stored_head()
    assert (head["seq"], head["hash"], head["projected"]) == (180, entries[-1].hash, 180)
    assert journal.verify().ok


def test_a_note_is_one_statement_that_appends_and_moves_the_projected_position(graph: GraphPort) -> None:
    journal = open_journal(graph)
    journal.write("ann", lambda: plan_note("first"))
    ran: list[str] = []
    real = graph.run

    def counting(name: str, params: dict | None = None) -> list:  # type: ignore[type-arg]
        ran.append(name)
        return real(name, params)

    graph.run = counting  # type: ignore[method-assign]
    try:
        journal.write("ann", lambda: plan_note("second"))
    finally:
        graph.run = real  # type: ignore[method-assign]
    assert ran == ["append_entry_projected"]
    head = journal.stored_head()
    assert (head["seq"], head["projected"]) == (2, 2)


def test_a_draft_that_promises_no_graph_change_but_projects_is_refused_loudly(graph: GraphPort) -> None:
    from graph_service.domain import Applied, Draft
    from graph_service.projection import Projection

    class Lying:
        def handles(self, op: str) -> bool:
            return op == "lie"

        def reset(self) -> None:
            pass

        def apply(self, entry: object) -> Applied:
            projection = Projection()
            projection.node("Item", "k-lie", status="active")
            return Applied(projection)

    journal = Journal(graph, [Lying()]).open()
    with pytest.raises(RuntimeError, match="planned as changing nothing in the graph"):
        journal.write("ann", lambda: Draft("lie", {}, changes_graph=False))


def test_a_catch_up_while_a_writers_append_is_on_its_way_applies_it_once(graph: GraphPort) -> None:
    # An async writer runs its round trips in a worker thread (api/context.journal_write) while reads on
    # the event loop catch up: one may apply the writer's own entry first. The writer must then take that
    # result, not apply the entry again, and the graph must hold its projection.
    state = StoreState()
    journal = Journal(graph, [state]).open()
    raw = {"kind": "fact", "body": {"s": "pump", "r": "is", "o": "on"}, "source": "person"}
    steps = journal.write_steps("ann", lambda: planning.plan_add(state.knowledge, raw, by="ann"))
    append = next(steps)
    landed = append()
    assert landed and journal.seq == 0
    journal.catch_up()  # a read, while the append's answer is on its way back
    assert journal.seq == 1
    with pytest.raises(StopIteration) as done:
        steps.send(landed)
    written = done.value.value
    assert written.entry.seq == 1 and written.entry.op == "item.add"
    item_id = written.result["id"]
    assert (written.result["admission"], written.result["status"]) == ("present", "active")
    assert state.knowledge.status(item_id) == "active" and len(state.knowledge.items) == 1
    assert journal.stored_head()["projected"] == 1
    assert [row["item"]["status"] for row in graph.run("items_by_id", {"ids": [item_id]})] == ["active"]
    second = journal.write("bob", lambda: plan_note("after"))
    assert second.entry.seq == 2 and journal.verify().ok


def test_a_catch_up_while_a_writers_projection_is_on_its_way_replays_nothing(
        graph: GraphPort, monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: a read's catch-up saw the graph one projection behind the entry this process had just
    # applied, took it for a lost projection and replayed the whole journal, on the event loop. It is
    # only on its way: the read goes on, and a projection that then fails is still repaired.
    state = StoreState()
    journal = Journal(graph, [state]).open()
    journal.write("ann", lambda: plan_note("before"))
    replays: list[int] = []
    replay_all = journal._replay_all
    monkeypatch.setattr(journal, "_replay_all", lambda: (replays.append(journal.seq), replay_all())[1])
    raw = {"kind": "fact", "body": {"s": "pump", "r": "is", "o": "on"}, "source": "person"}
    steps = journal.write_steps("ann", lambda: planning.plan_add(state.knowledge, raw, by="ann"))
    step = next(steps)
    while step.func.__name__ != "_project":  # the append, and what it lands
        step = steps.send(step())
    journal.catch_up()  # a read, while the projection is on its way
    assert replays == [] and journal.seq == 2 and journal.stored_head()["projected"] == 1
    with pytest.raises(StopIteration) as done:
        steps.send(step())
    assert done.value.value.entry.seq == 2 and journal.stored_head()["projected"] == 2
    journal.catch_up()
    assert replays == [] and journal.verify().ok
    # A projection that fails on its way is still found missing by the next catch-up, and repaired from the
    # projection this process kept, not by replaying the whole journal (which it used to do, on a read's path).
    lost = {**raw, "body": {"s": "pump", "r": "is", "o": "off"}}
    steps = journal.write_steps("ann", lambda: planning.plan_add(state.knowledge, lost, by="ann"))
    step = next(steps)
    while step.func.__name__ != "_project":
        step = steps.send(step())
    with pytest.raises(StopIteration):
        steps.send(None)  # the projection statement never ran
    assert journal.stored_head()["projected"] == 2
    journal.catch_up()
    assert replays == [] and journal.stored_head()["projected"] == 3 and journal.verify().ok


def test_a_write_whose_append_lost_the_race_plans_again_on_the_winners_state(graph: GraphPort) -> None:
    # Another process appends between this writer's plan and its append: the compare-and-set refuses the
    # append, and the writer catches up and plans again, so the entry lands after the winner's.
    journal = open_journal(graph)
    other = open_journal(graph)
    steps = journal.write_steps("ann", lambda: plan_note("mine"))
    append = next(steps)
    other.write("bob", lambda: plan_note("theirs"))
    step = steps.send(append())  # refused: is it ours that landed? (it is not)
    step = steps.send(step())
    with pytest.raises(StopIteration) as done:
        while True:
            step = steps.send(step())
    assert done.value.value.entry.seq == 2
    assert [e.payload["text"] for e in journal.entries_after(0)] == ["theirs", "mine"]


def test_a_bulk_load_refused_midway_keeps_the_batches_before_and_the_state_of_the_journal(
        graph: GraphPort) -> None:
    # Batches are appended in a worker thread while the next is planned (Journal._load): when entry 130
    # is refused, the batch in flight lands and the one being planned was applied in memory only.
    journal = open_journal(graph)

    def plans() -> Iterator[Callable[[], Draft]]:
        for i in range(1, 200):
            yield lambda i=i: plan_note("" if i == 130 else f"n{i}")

    with pytest.raises(UserError, match="text must be a non-empty string"):
        journal.write_batch("ann", plans(), batch_size=50)
    assert journal.stored_head()["seq"] == journal.seq == 100
    assert [e.payload["text"] for e in journal.entries_after(0)] == [f"n{i}" for i in range(1, 101)]
    assert journal.write("bob", lambda: plan_note("after")).entry.seq == 101
    assert journal.verify().ok


def test_a_bulk_load_that_another_writer_overtakes_is_a_conflict_and_the_state_is_the_journals(
        graph: GraphPort) -> None:
    journal = open_journal(graph)
    other = open_journal(graph)

    def plans() -> Iterator[Callable[[], Draft]]:
        for i in range(1, 200):
            if i == 60:  # once the first batch (in flight in a worker thread) has landed, the second loses
                deadline = time.monotonic() + 60
                while other.stored_head()["seq"] < 50 and time.monotonic() < deadline:
                    time.sleep(0.01)
                other.write("bob", lambda: plan_note("overtaking"))
            yield lambda i=i: plan_note(f"n{i}")

    with pytest.raises(Conflict, match="another writer appended during the bulk load"):
        journal.write_batch("ann", plans(), batch_size=50)
    texts = [e.payload["text"] for e in journal.entries_after(0)]
    assert texts == [f"n{i}" for i in range(1, 51)] + ["overtaking"]
    assert journal.stored_head()["seq"] == journal.seq == 51
    assert journal.write("ann", lambda: plan_note("after")).entry.seq == 52
    assert journal.verify().ok
