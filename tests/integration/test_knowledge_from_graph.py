"""A state that holds no knowledge state, taking each knowledge entry as the graph gives it
(graph_service.from_graph.knowledge), does what the whole state does: taken as the graph holds it (the
statuses it gave the items it wrote), every other domain ends as the full replay leaves it, and every item's
status too; applied on what its rules read of the graph as of the entry before it, every entry writes what
the whole state writes, the knowledge bookkeeping included, and answers what it answers. That is what a start
and a write need of the knowledge entries once the service no longer holds the knowledge state
(docs/stateless-path.md)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graph_service.digest_sum import MODULUS
from graph_service.domain import Draft
from graph_service.errors import JournalBroken, UserError
from graph_service.from_graph import knowledge as knowledge_from_graph
from graph_service.from_graph.knowledge import KnowledgeFromGraph, several_operations
from graph_service.from_graph.knowledge_region import PartsFromGraph
from graph_service.journal.chain import Entry
from graph_service.journal.notes import plan_note
from graph_service.knowledge import ops, planning
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.state import KnowledgeState
from graph_service.partial_reads import NeedMore
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.service import Service
from graph_service.state import StoreState, TakenOperation, replay, status_changes
from tests.backends import Backend
from tests.integration.in_graph import add_item, names_while, statements_recorded, two_writers, write_off_the_loop
from tests.integration.knowledge_histories import write_knowledge_history
from tests.knowledge_applies import differences, plain


def _beliefs(state: StoreState) -> dict[str, Any]:
    beliefs = state.beliefs
    return {
        "fingerprint": beliefs.running_fingerprint.value(),
        "rows": {i: dataclasses.asdict(r) for i, r in sorted(beliefs.rows.items())},
        "beliefs": {i: (b.version, b.status, b.updated_seq, b.breakdown, list(b.evidence))
                    for i, b in sorted(beliefs.beliefs.items())},
        "links": sorted((k, dataclasses.astuple(v)) for k, v in beliefs.links.items()),
        "refusals": list(beliefs.refusals),
    }


def _others(state: StoreState) -> dict[str, Any]:
    return {
        "observations": state.stream.observations(),
        "observers": state.stream.observers(),
        "questions": state.questions.questions(),
        "position": state.position,
    }


@pytest.mark.parametrize("seed", [5, 29])
def test_a_replay_taking_knowledge_entries_as_the_graph_holds_them_leaves_the_other_domains_as_the_full_one(
        backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 200, seed)
        entries = list(service.journal.entries_after(0))
        whole = replay(entries)
        taking = KnowledgeFromGraph(service.graph, held=lambda: len(entries), page=64)
        taken = StoreState(taking)
        for entry in entries:
            taken.apply(entry)
        # Only an answer carrying several operations is applied (its WROTE edges keep them together).
        assert taking.applied == sum(several_operations(e) for e in entries)
        assert taking.statuses.statements >= len(entries) // 64  # a range at a time, never an entry at a time
        assert not taken.knowledge.items  # nothing of the knowledge state was held
        every_item = sorted(whole.knowledge.items)
        assert {i: taken.item_status(i) for i in every_item} == {i: whole.knowledge.status(i) for i in every_item}
        assert {i: whole.item_status(i) for i in every_item} == {i: whole.knowledge.status(i) for i in every_item}
        fell = [r for r in whole.beliefs.rows.values() if r.retracted and r.root_kind == "item"]
        assert fell, "the history must take evidence down with an item for this to test anything"
        assert _beliefs(taken) == _beliefs(whole)
        assert _others(taken) == _others(whole)
    finally:
        service.close()


class _AppliedWherePossible(KnowledgeFromGraph):
    """Every entry applied on what it reads (as a write does), but one that reads a whole part (a flag over
    everything, a snapshot of everything) taken as the graph holds it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.whole_part: Counter[str] = Counter()
        self.ops: Counter[str] = Counter()

    def __call__(self, entry: Entry) -> list[TakenOperation]:
        try:
            taken = self.apply(entry)
        except NeedMore:
            self.whole_part[entry.op] += 1
            return [TakenOperation(self.statuses(entry))]
        self.ops[entry.op] += 1
        return taken


@pytest.mark.parametrize("seed", [3, 17])
def test_each_knowledge_entry_applied_from_the_graph_writes_and_answers_what_the_whole_state_does(
        backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 160, seed)
        whole = StoreState()
        taking = _AppliedWherePossible(service.graph, held=lambda: service.journal.seq)  # the graph holds all
        taken = StoreState(taking)
        for entry in service.journal.entries_after(0):
            want, applied_before = whole.apply(entry), sum(taking.ops.values())
            got = taken.apply(entry)
            if knowledge_ops(entry.op, entry.payload) and sum(taking.ops.values()) == applied_before:
                continue  # taken as the graph holds it: nothing of its own to write
            assert plain(got.projection) == plain(want.projection), (
                entry.seq, entry.op, differences(plain(got.projection), plain(want.projection)))
            assert got.result == want.result, (entry.seq, entry.op)
        assert set(taking.ops) >= {ops.ADD, ops.RETRACT, ops.ROLLBACK, ops.RECONFIRM, ops.USED, ops.FLAG,
                                   ops.END_FLAG, ops.RESOLVE, ops.TICK, ANSWER_QUESTION}, taking.ops
        assert _beliefs(taken) == _beliefs(whole)
        every_item = sorted(whole.knowledge.items)
        assert {i: taken.item_status(i) for i in every_item} == {i: whole.knowledge.status(i) for i in every_item}
    finally:
        service.close()


def test_a_service_holding_no_knowledge_state_catches_up_with_another_writer_and_writes_on_the_graph(
        backend: Backend) -> None:
    # Another process (holding its knowledge state in memory) bulk-loads; this one, holding none, catches up on
    # entries it did not see written (taken as the graph holds them, read after its start), then writes a
    # retraction on what it reads of the graph, which the other one catches up on in memory.
    mine = Service.open(backend.whole_state_settings(knowledge="graph"))
    other = Service(backend.another_connection(mine.graph), backend.whole_state_settings())
    try:
        assert mine.knowledge_in_graph and not other.knowledge_in_graph
        other.start()
        for seed in (11, 12):  # twice: what was read of the first half must not hide the second
            write_knowledge_history(other, 60, seed)
            mine.journal.catch_up()
        entries = list(mine.journal.entries_after(0))
        whole = replay(entries)
        assert mine.journal.seq == len(entries) and not mine.state.knowledge.items
        assert _beliefs(mine.state) == _beliefs(whole)
        every_item = sorted(whole.knowledge.items)
        assert {i: mine.state.item_status(i) for i in every_item} == {i: whole.knowledge.status(i)
                                                                     for i in every_item}
        rooted = sorted({r for row in whole.beliefs.rows.values() if row.root_kind == "item" and not row.retracted
                         for r in row.root_ids if whole.present("item", r)})
        assert rooted, "the history must root live evidence in an item for this to test anything"
        done = mine.journal.write("ann", lambda: mine.plan_knowledge(
            lambda k: planning.plan_retract(k, rooted[0], "wrong")))
        assert status_changes(done.result)[rooted[0]] == (whole.knowledge.status(rooted[0]), "retracted")
        other.journal.catch_up()
        assert _beliefs(other.state) == _beliefs(mine.state)
        report = mine.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        other.graph.close()
        mine.close()


def test_a_knowledge_write_holding_no_state_runs_no_statement_on_the_loop(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its plan reads only the graph, so it is a step (plan_off_loop), and what its application reads is read in a
    # step once the append landed (prepare): every statement runs in a worker thread, none on the loop's.
    service = Service.open(backend.whole_state_settings(knowledge="graph"))
    try:
        first = service.journal.write("ann", lambda: service.plan_knowledge(lambda k: planning.plan_add(
            k, {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "red"}, "source": "person"}, by="ann")))
        ran = statements_recorded(service, monkeypatch)
        derived = {"kind": "fact", "body": {"s": "door", "r": "paint", "o": "red"}, "source": "person",
                   "derived_from": [first.result["id"]]}
        done = write_off_the_loop(service, lambda: service.plan_knowledge(
            lambda k: planning.plan_add(k, derived, by="ann")))
        assert done.result["status"] == "active" and service.state.item_status(done.result["id"]) == "active"
        names = [name for name, _ in ran]
        assert "item_reads_upto" in names and "append_entry" in names, names  # it read and it wrote
        assert not [name for name, on_loop in ran if on_loop], ran
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_write_on_the_head_reads_the_store_fingerprint_with_its_first_statement(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules of most knowledge writes move the store's running fingerprint, and then read its sum as of the
    entry before: a source on the head has it from the statement it starts with (write_reads_start), so no
    write reads it in a statement of its own; a source behind the head, whose sum a later entry changed, folds
    it from the node's history, as a replay gives it there."""
    service = Service.open(backend.whole_state_settings(knowledge="graph"))
    try:
        write_knowledge_history(service, 60, 7)
        behind = service.journal.seq
        ran: list[str] = []
        run = service.graph.run
        monkeypatch.setattr(service.graph, "run", lambda name, *args, **kwargs: ran.append(name) or run(
            name, *args, **kwargs))
        for n in range(8):
            raw = {"kind": "fact", "body": {"s": f"door-{n}", "r": "colour", "o": n}, "source": "person"}
            service.journal.write("ann", lambda raw=raw: service.plan_knowledge(
                lambda k: planning.plan_add(k, raw, by="ann")))
        # The start is read at most once: after a knowledge write of its own, the next one knows it (see
        # test_consecutive_knowledge_writes_read_where_they_start_once...).
        assert ran.count("write_reads_start") <= 1 and "fingerprint_upto" not in ran, Counter(ran)
        entries = list(service.journal.entries_after(0))
        assert service.fingerprints() == replay(entries).fingerprints()
        assert PartsFromGraph(service.graph, behind)._fingerprint_sum() == replay(
            entries, upto=behind).knowledge.fingerprint_sum()
        assert "fingerprint_upto" in ran  # read apart: the head's sum is not the sum as of `behind`
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def _restarts_counted(monkeypatch: pytest.MonkeyPatch, bound: str) -> list[int]:
    """Bound a run at 40 (of `bound`) and keep the position each restart starts from."""
    monkeypatch.setattr(knowledge_from_graph, bound, 40)
    restarts: list[int] = []
    again_from = knowledge_from_graph.Run.again_from
    monkeypatch.setattr(knowledge_from_graph.Run, "again_from",
                        lambda run, source: restarts.append(source.upto) or again_from(run, source))
    return restarts


def _whole_history(backend: Backend, query: str) -> tuple[list[Entry], dict[str, Any], list[list[Any]]]:
    """The 240-entry history the bulk loads load, written by a service holding the whole state: its entries,
    its fingerprints and the rows `query` gives of its graph, sorted."""
    whole = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(whole, 240, 23)
        return list(whole.journal.entries_after(0)), whole.fingerprints(), sorted(backend.raw(whole.graph, query))
    finally:
        whole.close()


@pytest.mark.parametrize("bound", ["RUN_ENTRIES", "RUN_PARTS"])
def test_a_bulk_load_into_a_service_holding_no_knowledge_state_writes_what_the_whole_state_writes(
        backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: str) -> None:
    """A bulk load applies each batch while the one before it is appended, so the graph does not hold the entry
    before it: the entries go on a run applied ahead of the graph (knowledge_from_graph.Run), which starts again
    from what the graph holds once it has applied many entries or its state holds many parts (here 40 of the
    one bound). Loaded so, with small batches, a history gives the graph and the fingerprints that the service
    holding the whole state gave it; and a batch planned through the service plans on the run
    (`plan_knowledge`), which verify then finds as a replay writes it."""
    restarts = _restarts_counted(monkeypatch, bound)
    entries, fingerprints, statuses = _whole_history(backend, "MATCH (i:Item) RETURN i.id, i.status")
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(knowledge="graph"))
    try:
        assert service.knowledge_in_graph
        assert service.journal.import_entries(entries, batch_size=17) == len(entries)
        assert restarts and all(0 < at < len(entries) for at in restarts), restarts  # the runs started again
        taken = service.state.knowledge_taken
        assert isinstance(taken, knowledge_from_graph.KnowledgeFromGraph)
        run = taken._run
        # What a run keeps of what it read is one copy of each part, in its state.
        assert run is not None and not run.reader.fetched.parts and not run.source._read
        assert not service.state.knowledge.items  # nothing of the knowledge state was held
        assert service.fingerprints() == fingerprints
        assert sorted(into.raw(service.graph, "MATCH (i:Item) RETURN i.id, i.status")) == statuses
        pool = [i for i, _ in statuses]
        rng = random.Random(3)

        def live() -> list[str]:
            return [i for i in pool if service.state.item_status(i) not in (None, "retracted")]

        def add(n: int) -> Draft:
            raw = {"kind": "fact", "body": {"s": f"loaded-{n}", "r": "colour", "o": n}, "source": "person",
                   "derived_from": rng.sample(live(), 2)}
            return service.plan_knowledge(lambda k: planning.plan_add(k, raw, by="loader"))

        def retract() -> Draft:
            target = rng.choice(live())
            return service.plan_knowledge(lambda k: planning.plan_retract(k, target, "load"))

        plans = [(lambda n=n: add(n)) if n % 2 else retract for n in range(60)]
        assert service.journal.write_batch("loader", plans, batch_size=7) == 60
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_load_reads_the_store_fingerprint_once_and_gives_each_run_it_starts_again_the_sum_at_its_start(
        backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run started again while a load's batch lands would read the fingerprint's sum as of its start then, and
    on Neo4j (read committed, no snapshot of the store) a read racing a write may mix two states. So the load
    reads the sum once, when its first run needs it, before any batch is in flight; each run started again is
    given the sum at its start by the run before, which wrote it; and a run's snapshots record the one sum its
    writes move. Here every read after the first answers a wrong sum: the load still writes the whole state's
    fingerprints and snapshots."""
    restarts = _restarts_counted(monkeypatch, "RUN_ENTRIES")
    entries, fingerprints, snapshots = _whole_history(backend, "MATCH (s:Snapshot) RETURN s.at, s.fingerprint")
    assert snapshots, "the history records snapshots"
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(knowledge="graph"))
    try:
        reads: list[int] = []
        read_sum = PartsFromGraph._fingerprint_sum

        def wrong_after_the_first(source: PartsFromGraph) -> tuple[int, int]:
            reads.append(source.upto)
            total, count = read_sum(source)
            return (total, count) if len(reads) == 1 else ((total + 1) % MODULUS, count)

        monkeypatch.setattr(PartsFromGraph, "_fingerprint_sum", wrong_after_the_first)
        assert service.journal.import_entries(entries, batch_size=17) == len(entries)
        monkeypatch.setattr(PartsFromGraph, "_fingerprint_sum", read_sum)
        assert restarts and len(reads) == 1, (restarts, reads)
        assert any(at > restarts[0] for at, _ in snapshots), "a snapshot is taken on a run started again"
        assert service.fingerprints() == fingerprints
        assert sorted(into.raw(service.graph, "MATCH (s:Snapshot) RETURN s.at, s.fingerprint")) == snapshots
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_run_past_a_bound_starts_again_once_the_graph_has_taken_more_of_it_or_at_twice_the_bound() -> None:
    """A restart applies again, cold, the entries past what the graph holds: a run past a bound waits for a load's
    batch to land, when those are fewest, unless it is twice past."""
    due = knowledge_from_graph.restart_due
    entries, parts = knowledge_from_graph.RUN_ENTRIES, knowledge_from_graph.RUN_PARTS
    assert not due(entries - 1, parts - 1, landed=True)
    assert due(entries, 0, landed=True) and due(0, parts, landed=True)
    assert not due(entries, 0, landed=False) and not due(2 * entries - 1, 2 * parts - 1, landed=False)
    assert due(2 * entries, 0, landed=False) and due(0, 2 * parts, landed=False)


def test_a_load_reads_ahead_what_its_entries_name_and_writes_what_it_writes_without(
        backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A load of exported entries tells the state of each window of them before it applies the first
    (Journal._announced): the run reads the items and keys they name in one statement, where the rules would ask
    for them one entry at a time. Loaded with and without that, a history gives the same graph, fingerprints and
    a verify that passes; with it, the load reads items and keys in fewer statements."""
    whole = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(whole, 240, 31)
        entries = list(whole.journal.entries_after(0))
        fingerprints = whole.fingerprints()
    finally:
        whole.close()

    def load(name: str) -> tuple[list[Any], Counter[str]]:
        into = backend.fresh_store(tmp_path / name)
        service = Service.open(into.whole_state_settings(knowledge="graph"))
        ran: Counter[str] = Counter()
        run = service.graph.run

        def counted(query: str, *args: Any, **kwargs: Any) -> Any:
            ran[query] += 1
            return run(query, *args, **kwargs)

        try:
            with monkeypatch.context() as patch:
                patch.setattr(service.graph, "run", counted)
                assert service.journal.import_entries(entries, batch_size=17) == len(entries)
            assert not service.state.knowledge.items  # nothing of the knowledge state was held
            assert service.fingerprints() == fingerprints
            report = service.verify()
            assert report.ok, (report.chain, report.projection_difference)
            return sorted(into.raw(service.graph, "MATCH (i:Item) RETURN i.id, i.status, i.rank")), ran
        finally:
            service.close()

    ahead, read_ahead = load("ahead")
    with monkeypatch.context() as patch:
        patch.setattr(StoreState, "read_ahead", lambda state, entries: None)
        asked, read_as_asked = load("asked")
    assert ahead == asked
    reads = ("item_reads_upto", "items_on_keys_upto")
    assert 0 < sum(read_ahead[q] for q in reads) < sum(read_as_asked[q] for q in reads), (read_ahead, read_as_asked)


def test_a_load_refuses_a_malformed_entry_of_a_window_it_read_ahead_for_as_that_entry_comes(
        backend: Backend, tmp_path: Path) -> None:
    """What is read ahead is not checked yet: an entry whose payload is not a map, in the first window, names
    nothing to read, and the load refuses it when it comes, with the batches before it written and sound."""
    whole = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(whole, 60, 37)
        entries = list(whole.journal.entries_after(0))
    finally:
        whole.close()
    bad = dataclasses.replace(entries[40], payload=["not", "a", "payload"])  # type: ignore[arg-type]
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(knowledge="graph"))
    try:
        with pytest.raises(UserError, match="entry 41: entry payload must be a JSON object"):
            service.journal.import_entries([*entries[:40], bad, *entries[41:]], batch_size=17)
        assert service.journal.seq == service.journal.stored_length() == 34  # two whole batches
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
def test_a_bulk_load_plans_its_first_knowledge_entry_ahead_of_the_graph(backend: Backend) -> None:
    """A load whose first knowledge entry comes after a batch of other entries is in flight: its plan starts a
    run from what the graph holds then, and its application goes on that run, wherever the graph has got to."""
    service = Service.open(backend.whole_state_settings(knowledge="graph"))
    try:
        notes = [lambda n=n: plan_note(f"note {n}") for n in range(12)]
        adds = [lambda n=n: service.plan_knowledge(lambda k: planning.plan_add(
            k, {"kind": "fact", "body": {"s": f"pump {n}", "r": "rated", "o": n}, "source": "person"}, by="ann"))
            for n in range(6)]
        assert service.journal.write_batch("loader", [*notes, *adds], batch_size=5) == 18
        assert not service.state.knowledge.items
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
        assert len(backend.raw(service.graph, "MATCH (i:Item) RETURN i.id")) == 6
    finally:
        service.close()


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
def test_a_store_written_before_the_graph_kept_what_a_write_reads_keeps_its_knowledge_state_in_memory(
        backend: Backend, caplog: pytest.LogCaptureFixture) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 40, 2)
        backend.raw(service.graph, "MATCH (h:Head) SET h.keeps = 1")  # as a store written before the bookkeeping
    finally:
        service.close()
    with caplog.at_level("WARNING", logger="graph_service.service"):
        service = Service.open(backend.whole_state_settings(knowledge="graph"))
    try:
        assert not service.knowledge_in_graph and service.state.knowledge.items
        assert "its knowledge state is held in memory" in caplog.text
    finally:
        service.close()


def test_a_broken_chain_holding_no_knowledge_state_starts_on_its_sound_prefix(backend: Backend) -> None:
    # As a service holding it in memory does: the state is the sound prefix, the fingerprints are its (here read
    # from the graph's sums as of that position), and writes are refused naming the position.
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 60, 4)
        entries = list(service.journal.entries_after(0))
        broken = len(entries) // 2
        backend.raw(service.graph, "MATCH (e:Entry {seq: $s}) SET e.payload = $p",
                    {"s": broken, "p": '{"text": "forged"}'})
    finally:
        service.close()
    service = Service.open(backend.whole_state_settings(knowledge="graph"))
    try:
        assert service.knowledge_in_graph and service.journal.broken is not None
        assert service.journal.broken.position == broken and service.journal.seq == broken - 1
        assert service.fingerprints() == replay(entries, upto=broken - 1).fingerprints()
        with pytest.raises(JournalBroken, match=f"broken at position {broken}"):
            service.journal.write("ann", lambda: plan_note("after"))
    finally:
        service.close()


def test_an_addition_on_premises_reads_its_items_in_one_statement_and_none_it_does_not_name(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Holding nothing (the default): the plan reads the premises and the new item at once; the application, on what
    # the plan read, reads no item again (it looked up the empty id, an assertion superseding nothing, as an item:
    # a round trip every addition paid for a key no item has).
    service = Service.open(backend.settings())
    try:
        premises = [add_item(service, {"kind": "fact", "body": {"s": f"p{i}", "r": "is", "o": i}, "source": "person"})
                    for i in range(2)]
        reads: list[list[str]] = []
        run = service.graph.run

        def recorded(name: str, params: dict[str, Any] | None = None) -> Any:
            if name == "item_reads_upto":
                reads.append(list((params or {})["asked"]["ids"]))
            return run(name, params)

        monkeypatch.setattr(service.graph, "run", recorded)
        derived = add_item(service, {"kind": "fact", "body": {"s": "d", "r": "is", "o": 1}, "source": "person",
                       "derived_from": premises})
        assert len(reads) == 1 and set(reads[0]) == {*premises, derived}, reads
    finally:
        service.close()


def test_a_knowledge_write_applied_here_reads_no_item_status_its_result_reports(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Holding nothing: the status changes of a knowledge write applied on what its rules read are in its result
    # (as the whole state reports them), so the statuses of the items it wrote are not read again from their nodes
    # (item_statuses, a statement every knowledge write paid for).
    service = Service.open(backend.settings())
    try:
        def write(plan: Callable[[KnowledgeState], Draft]) -> Any:
            return service.journal.write("ann", lambda: service.plan_knowledge(plan)).result

        premise = write(lambda k: planning.plan_add(
            k, {"kind": "fact", "body": {"s": "p", "r": "is", "o": 1}, "source": "person"}, by="ann"))["id"]
        ran = statements_recorded(service, monkeypatch)
        derived = write(lambda k: planning.plan_add(k, {"kind": "fact", "body": {"s": "d", "r": "is", "o": 1},
                                                        "source": "person", "derived_from": [premise]}, by="ann"))
        retracted = write(lambda k: planning.plan_retract(k, premise))
        assert "item_statuses" not in [name for name, _ in ran], ran
        assert derived["status"] == "active"
        assert status_changes(retracted) == {premise: ("active", "retracted"), derived["id"]: ("active", "retracted")}
        statuses = {row["id"]: row["status"] for row in service.graph.run(
            "item_statuses", {"items": [premise, derived["id"]]})}
        assert statuses == {premise: "retracted", derived["id"]: "retracted"}
    finally:
        service.close()


def test_consecutive_knowledge_writes_read_where_they_start_once_and_again_after_another_writers(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Holding nothing: the clock and the knowledge fingerprint a write reads as of the head (write_reads_start) are
    # known right after a knowledge write of this process's own (the journal's clock, the fingerprint its run
    # left), so the next write runs no statement for them; after an entry of another kind, or another process's
    # knowledge entry (which this process takes as the graph holds it, without applying it), they are read again.
    # The fingerprints and the graph stay what a replay gives.
    with two_writers(backend.settings()) as (first, second):
        ran = statements_recorded(first, monkeypatch)

        def add(service: Service, n: int) -> list[str]:
            raw = {"kind": "fact", "body": {"s": f"pump-{n}", "r": "is", "o": n}, "source": "person"}
            return names_while(ran, lambda: service.journal.write("ann", lambda: service.plan_knowledge(
                lambda k: planning.plan_add(k, raw, by="ann"))))

        assert "write_reads_start" in add(first, 0)  # nothing known after a start
        assert "write_reads_start" not in add(first, 1)
        first.journal.write("ann", lambda: plan_note("an entry of another kind"))
        assert "write_reads_start" in add(first, 2)
        assert "write_reads_start" not in add(first, 3)
        add(second, 4)
        assert "write_reads_start" in add(first, 5)  # another writer's knowledge entry came between
        assert "write_reads_start" not in add(first, 6)
        entries = list(first.journal.entries_after(0))
        assert first.fingerprints() == replay(entries).fingerprints()
        report = first.verify()
        assert report.ok, (report.chain, report.projection_difference)
