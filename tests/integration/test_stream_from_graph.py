"""The stream and the statements on what they read of the graph (GRAPH_SERVICE_STREAM=graph:
graph_service.from_graph.stream), on every backend: each request of random histories (declarations, rows,
boundaries with views coming and going and transfers, statements to someone and to no one, and the refusals among
them) plans to the whole state's entry or refusal, and the graph the entries' applications write is what a replay
projects (verify). A bulk load whose batches run ahead of the graph gives the same store, and a start reads nothing
of the stream."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from graph_service.errors import UserError
from graph_service.from_graph.stream import GraphStream, StreamParts
from graph_service.projection import KEEPS_STREAM_WRITES
from graph_service.service import Service
from graph_service.state import StoreState
from graph_service.statements import OP_SAY
from graph_service.stream.state import OP_DECLARE, OP_OBSERVE, OP_PRESENCE, Observer, StreamState
from tests.backends import Backend
from tests.integration.in_graph import names_while, statements_recorded, two_writers, write_off_the_loop

OBSERVERS = ["ann", "bob", "cy", "dee"]
SUBJECTS = ["1", "2", "3", "4", "5", "rock"]
WORDS = ["the rock is heavy", "bob is tall", "it is not raining", "hello there", "ann owns the rock"]


def stream_request(rng: random.Random, ticks: dict[str, int]) -> tuple[str, dict[str, Any]]:
    """A random stream or statement request: mostly well formed, some refused (an undeclared observer, a declaration
    made twice, a boundary before the last one, a wordless speaker)."""
    who = rng.choice([*OBSERVERS, "eve"])
    roll = rng.random()
    if roll < 0.12:
        return OP_DECLARE, {"observer": who, "wordless": rng.random() < 0.3}
    tick = ticks.get(who, 0) + rng.choice([-3, 0, 1, 2, 5])
    if tick >= 0 and rng.random() < 0.9:
        ticks[who] = max(ticks.get(who, 0), tick)
    if roll < 0.4:
        kind = rng.choice(["seen", "given", "taken"])
        return OP_OBSERVE, {"observer": who, "tick": tick, "kind": kind, "subject": rng.choice(SUBJECTS),
                            "magnitude": 0 if kind == "seen" else rng.randint(1, 40)}
    if roll < 0.75:
        transfers = [{"kind": rng.choice(["given", "taken"]), "subject": rng.choice(SUBJECTS),
                      "magnitude": rng.randint(1, 40)} for _ in range(rng.randint(0, 2))]
        return OP_PRESENCE, {"observer": who, "tick": tick, "in_view": rng.sample(SUBJECTS, rng.randint(0, 4)),
                             "transfers": transfers}
    payload: dict[str, Any] = {"text": rng.choice(WORDS), "speaker": rng.choice(OBSERVERS), "tick": max(tick, 0)}
    if rng.random() < 0.6:
        payload["to"] = rng.choice(OBSERVERS)
    return OP_SAY, payload


def _plan(state: StoreState, op: str, payload: dict[str, Any]) -> Any:
    domain = state.statements if op == OP_SAY else state.stream
    try:
        return domain.plan(op, payload)
    except UserError as refused:
        return type(refused).__name__, str(refused), refused.field


@pytest.mark.parametrize("seed", [5, 17])
def test_a_stream_write_on_what_it_reads_of_the_graph_is_the_whole_states(backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings(stream="graph"))
    try:
        assert service.journal.keeps_at_least(KEEPS_STREAM_WRITES) and service.stream_in_graph
        assert isinstance(service.state.stream, GraphStream)
        whole, rng, ticks = StoreState(), random.Random(seed), {}
        planned, refused, reads = 0, set(), []
        for _ in range(160):
            op, payload = stream_request(rng, ticks)
            expected = _plan(whole, op, payload)
            before = service.state.stream_taken.reads  # type: ignore[union-attr]
            got = _plan(service.state, op, payload)
            reads.append(service.state.stream_taken.reads - before)  # type: ignore[union-attr]
            assert got == expected, (op, payload)
            if isinstance(expected, tuple):
                refused.add(expected[0])
                continue
            written = service.journal.write("ann", lambda d=expected: d)
            assert written.result == whole.apply(written.entry).result
            planned += 1
        assert planned > 90 and {"NotFound", "Conflict", "UserError"} <= refused, (planned, refused)
        assert max(reads) == 1  # what a plan reads is one statement, whatever the store holds
        assert service.state.stream_taken.ahead == 0  # type: ignore[union-attr]  (the graph holds every entry)
        report = service.verify()  # the graph the reads wrote is the one a replay projects
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def _write_history(service: Service, seed: int, requests: int = 120) -> int:
    rng, ticks, written = random.Random(seed), {}, 0
    for _ in range(requests):
        op, payload = stream_request(rng, ticks)
        domain = service.state.statements if op == OP_SAY else service.state.stream
        try:
            service.journal.write("ann", lambda op=op, payload=payload, domain=domain: domain.plan(op, payload))
            written += 1
        except UserError:
            pass
    return written


def test_a_start_reads_nothing_of_the_stream_and_goes_on_where_it_was(backend: Backend) -> None:
    settings = backend.whole_state_settings(stream="graph")
    service = Service.open(settings)
    try:
        assert _write_history(service, 23) > 60
        ticks = {name: service.state.stream.last_boundary(name) for name in OBSERVERS}
    finally:
        service.close()
    again = Service.open(settings)
    try:
        assert again.state.stream_taken.reads == 0  # type: ignore[union-attr]
        assert {name: again.state.stream.last_boundary(name) for name in OBSERVERS} == ticks
        late = [name for name, tick in ticks.items() if tick]
        assert late
        with pytest.raises(UserError, match="before this observer's last boundary"):
            again.state.stream.plan(OP_PRESENCE, {"observer": late[0], "tick": ticks[late[0]] - 1, "in_view": []})
        assert again.verify().ok
    finally:
        again.close()


def test_a_bulk_load_ahead_of_the_graph_gives_the_same_store(backend: Backend, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A load applies a batch while the one before it is appended: what the entries past the graph changed is kept
    with them (StreamParts.keep) until the graph holds them, and is read in place of the graph's."""
    query = ("MATCH (a:Actor) RETURN a.id AS id, a.observer AS o, a.declared AS d, a.wordless AS w, a.view AS v, "
             "a.boundary_tick AS t UNION ALL MATCH (c:Conversation) RETURN c.id AS id, c.hearer AS o, "
             "c.last_speaker AS d, null AS w, null AS v, null AS t")
    whole = Service.open(backend.whole_state_settings())
    try:
        assert _write_history(whole, 31, 200) > 120
        entries, fingerprints = list(whole.journal.entries_after(0)), whole.fingerprints()
        nodes = sorted(map(str, backend.raw(whole.graph, query)))
    finally:
        whole.close()
    most_ahead = [0]
    keep = StreamParts.keep

    def kept(parts: StreamParts, *args: Any) -> None:
        keep(parts, *args)
        most_ahead[0] = max(most_ahead[0], len(parts._ahead))

    monkeypatch.setattr(StreamParts, "keep", kept)
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(stream="graph"))
    try:
        assert service.stream_in_graph
        assert service.journal.import_entries(entries, batch_size=17) == len(entries)
        assert most_ahead[0] > 17  # the entries of more than one batch were applied ahead of the graph
        # Each window of entries a load announces reads what its stream and statement entries read in one statement.
        ours = sum(1 for e in entries if e.op in (OP_DECLARE, OP_OBSERVE, OP_PRESENCE, OP_SAY))
        assert service.state.stream_taken.reads * 2 < ours, (service.state.stream_taken.reads, ours)  # type: ignore[union-attr]
        assert service.fingerprints() == fingerprints
        assert sorted(map(str, into.raw(service.graph, query))) == nodes
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


@pytest.mark.parametrize("held", ["stream", "nothing"])
def test_a_stream_write_runs_no_statement_on_the_event_loop(backend: Backend, monkeypatch: pytest.MonkeyPatch,
                                                            held: str) -> None:
    # Only the stream in the graph, and nothing held (the default: a statement's claims become evidence on a belief
    # layer read from the graph too, and that is read off the loop as well).
    service = Service.open(backend.whole_state_settings(stream="graph") if held == "stream" else backend.settings())
    try:
        service.journal.write("ann", lambda: service.state.stream.plan(OP_DECLARE, {"observer": "ann"}))
        ran = statements_recorded(service, monkeypatch)
        for op, payload in [(OP_PRESENCE, {"observer": "ann", "tick": 3, "in_view": ["1", "2"]}),
                            (OP_OBSERVE, {"observer": "ann", "tick": 4, "kind": "seen", "subject": "1"}),
                            (OP_SAY, {"text": "the rock is heavy", "speaker": "bob", "tick": 4, "to": "ann"})]:
            domain = service.state.statements if op == OP_SAY else service.state.stream
            write_off_the_loop(service, lambda op=op, payload=payload, domain=domain: domain.plan(op, payload))
        assert "stream_parts" in {name for name, _ in ran}
        assert not [name for name, on_loop in ran if on_loop], ran
    finally:
        service.close()


def test_a_store_written_before_the_graph_kept_the_streams_parts_keeps_them_in_memory(
        backend: Backend, caplog: pytest.LogCaptureFixture) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        assert _write_history(service, 41, 60) > 20
        backend.raw(service.graph, "MATCH (h:Head) SET h.keeps = $keeps", {"keeps": KEEPS_STREAM_WRITES - 1})
    finally:
        service.close()
    service = Service.open(backend.whole_state_settings(stream="graph"))
    try:
        assert not service.stream_in_graph and type(service.state.stream) is StreamState
        assert service.state.stream.observers()  # replayed into memory, as before
        assert "GRAPH_SERVICE_STREAM=graph: this store's graph was written before" in caplog.text
    finally:
        service.close()


def test_a_read_outside_a_plan_or_an_application_reads_the_graph_as_it_is_then(backend: Backend) -> None:
    """What a plan or an application read is kept for it alone: a read after it, on the same thread, sees what was
    written since (an observer declared once its projection landed, and the kept part gone)."""
    service = Service.open(backend.whole_state_settings(stream="graph"))
    try:
        stream = service.state.stream
        assert stream.observer("zed") is None and not service.state.has_observation("obs-2-0")
        service.journal.write("ann", lambda: stream.plan(OP_DECLARE, {"observer": "zed"}))
        service.journal.write("ann", lambda: stream.plan(OP_OBSERVE, {
            "observer": "zed", "tick": 1, "kind": "seen", "subject": "rock"}))
        assert service.state.stream_taken.ahead == 0  # type: ignore[union-attr]  (the graph holds both)
        assert stream.observer("zed") == Observer("zed", wordless=False, declared=True)
        assert service.state.has_observation("obs-2-0")
        assert stream.firsts_among("zed", [("seen", "rock"), ("seen", "tree")]) == {("seen", "rock")}
    finally:
        service.close()


def test_an_observation_is_applied_on_what_its_plan_read_with_no_statement_of_its_own(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Holding nothing: a stream write's plan reads the parts it needs as of the head (stream_parts), and its own
    # entry, landed next, is applied as of the same position: it takes them from the plan rather than reading them
    # again. With another writer's entry between, the append is lost and the plan made again, on what it reads then.
    # The graph stays what a replay gives.
    with two_writers(backend.settings()) as (first, second):
        for service in (first, second):
            service.journal.write("ann", lambda service=service: service.state.stream.plan(
                OP_DECLARE, {"observer": f"cam-{id(service)}"}))
        first.journal.catch_up()  # the other's declaration
        ran = statements_recorded(first, monkeypatch)

        def observe(service: Service, tick: int) -> list[str]:
            return names_while(ran, lambda: service.journal.write("ann", lambda: service.state.stream.plan(
                OP_OBSERVE, {"observer": f"cam-{id(service)}", "tick": tick, "kind": "seen",
                             "subject": f"door-{tick % 2}"})))

        for tick in (1, 2, 3):
            assert observe(first, tick) == ["stream_parts", "append_entry", "project_observations"]
        observe(second, 4)
        assert observe(first, 5).count("stream_parts") == 2  # planned on a stale head, then again
        assert observe(first, 6) == ["stream_parts", "append_entry", "project_observations"]
        report = first.verify()
        assert report.ok, (report.chain, report.projection_difference)
