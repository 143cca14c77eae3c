"""A knowledge entry applied on the region of the store its rules read, as the graph held it just before,
does what it does applied on the whole store's state: the same graph changes and the same result, for
every entry of a random history that exercises every knowledge operation, on every backend. This is the
step a write that holds no copy of the store plans and applies on (docs/stateless-path.md); the
operations that have no region yet (a tick, a snapshot, a flag over a scope) are counted, not checked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from graph_service.from_graph.knowledge_region import apply_from_graph, knowledge_region, region_members
from graph_service.journal.chain import Entry
from graph_service.knowledge import ops
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.partial import ITEMS, RegionApplied, operations_of
from graph_service.knowledge.region import RegionStart, RegionUnknown, region_start
from graph_service.partial_reads import Fetched, NeedMore
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.service import Service
from graph_service.state import StoreState
from graph_service.storage.port import GraphPort
from tests.backends import Backend
from tests.integration.knowledge_histories import write_knowledge_history
from tests.knowledge_applies import check_every_entry

# Every operation with a region must be checked at least once (the history is random but seeded).
WITH_A_REGION = {ops.ADD, ops.RETRACT, ops.ROLLBACK, ops.RECONFIRM, ops.USED, ops.FLAG, ops.END_FLAG,
                 ops.RESOLVE, ANSWER_QUESTION}


def _on_whole_components(graph: GraphPort, largest: list[int]) -> Callable[[StoreState, Entry], RegionApplied]:
    def region_of(_whole: StoreState, entry: Entry) -> RegionApplied:
        carried = knowledge_ops(entry.op, entry.payload)
        region = knowledge_region(graph, carried, upto=entry.seq - 1)
        largest.append(len(region.items))
        subs = operations_of(entry)
        return RegionApplied([region.apply(sub) for sub in subs], Fetched(), 0, [{} for _ in subs],
                             [{} for _ in subs])

    return region_of


@pytest.mark.parametrize("seed", [3, 17])
def test_each_knowledge_entry_applied_on_its_whole_components_does_what_it_does_on_the_whole_store(
        backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 160, seed)
        largest: list[int] = []
        checked, unknown, whole = check_every_entry(
            service.journal.entries_after(0), _on_whole_components(service.graph, largest), (RegionUnknown,),
            bookkeeping=False)  # a whole-component state keeps no incremental order nor expiry queue
        assert set(checked) >= WITH_A_REGION, (checked, unknown)
        assert {ops.TICK, ops.SNAPSHOT} <= set(unknown), unknown
        # The region is not the store: the history's items are many, each region a few components.
        assert max(largest) < len(whole.knowledge.items), (max(largest), len(whole.knowledge.items))
    finally:
        service.close()


class NamedStatements:
    """A graph that keeps the name of every statement run through it."""

    def __init__(self, graph: GraphPort) -> None:
        self.graph, self.names = graph, Counter[str]()

    def run(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.names[name] += 1
        return self.graph.run(name, params)


@pytest.mark.parametrize("seed", [3, 17])
def test_each_knowledge_entry_applied_on_what_it_reads_from_the_graph_does_what_it_does_on_the_whole_store(
        backend: Backend, seed: int) -> None:
    """knowledge.partial's parts read from the graph as of the entry before (apply_from_graph): the same
    projection, result, done times and expiry queue changes as the whole store's state, reading a small part
    of the store. The store clock, and the clock each assertion was made at, come from the entries
    (graph_service.journal.clock) without reading a tick. A tick reads the pairs it takes from the expiry
    queue by their time, not every item."""
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 160, seed)
        # Assertions that run out, made after the clock moved: an assertion's clock matters to its expiry.
        clocks = {r[0]: r[1] for r in backend.raw(service.graph, "MATCH (e:Entry) RETURN e.seq, e.clock")}
        assert any(e.op == ops.ADD and e.payload.get("reconfirm_after") and clocks[e.seq] > 0
                   for e in service.journal.entries_after(0))
        graph = NamedStatements(service.graph)
        items_read: list[int] = []

        def region_of(_whole: StoreState, entry: Entry) -> RegionApplied:
            region = apply_from_graph(graph, entry, upto=entry.seq - 1)  # type: ignore[arg-type]
            items_read.append(region.fetched.count(ITEMS))
            return region

        entries = list(service.journal.entries_after(0))
        checked, unknown, whole = check_every_entry(entries, region_of, (NeedMore,))
        assert set(checked) >= WITH_A_REGION | {ops.TICK, ops.SNAPSHOT}, (checked, unknown)
        assert set(unknown) <= {ops.SNAPSHOT, ops.FLAG}, unknown
        flags = [e.payload.get("scope") for e in entries if e.op == ops.FLAG]  # over everything: the whole store
        assert unknown[ops.FLAG] == flags.count({}) and any(flags), (unknown, flags)
        assert max(items_read) < len(whole.knowledge.items), (max(items_read), len(whole.knowledge.items))
        assert graph.names["entries_of_op_upto"] == 0, graph.names
        assert graph.names["due_between_upto"] == checked[ops.TICK], graph.names  # a tick reads its due pairs
    finally:
        service.close()


def test_what_a_read_shows_to_be_empty_comes_with_it_and_each_unit_reads_its_done_time_as_the_whole_state_holds_it(
        backend: Backend) -> None:
    """An item the store does not hold has no dependents, superseders, pending expiry times or unit of its own,
    and a key no item is on has no done time, disputes or resolutions: the graph's reader sends those with the
    read that shows it, at no statement of their own, and the whole state's answer (the reference) holds the
    same. A unit's done time, read with an item, is its node's when nothing after the position wrote it and
    folded from its writes otherwise; read alone (`unit_history_upto`), folded: the whole state's each way. A
    planned add reads its premises and itself in one statement."""
    from graph_service.from_graph.knowledge_region import PartsFromGraph, plan_from_graph
    from graph_service.knowledge import planning
    from graph_service.knowledge.partial import (
        DEPENDENTS,
        DISPUTES,
        ON_KEY,
        PENDING,
        RESOLUTIONS,
        SUPERSEDED_BY,
        UNIT_TIME,
        whole_state_answer,
    )
    from graph_service.knowledge.units import unit_of

    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 120, 5)
        head, knowledge = service.journal.seq, service.state.knowledge
        graph = NamedStatements(service.graph)
        source = PartsFromGraph(graph, head)  # type: ignore[arg-type]
        absent, no_key = "k-" + "0" * 24, "[{},\"nothing\",\"here\"]"
        for part, key, shown in ((ITEMS, absent, {DEPENDENTS: absent, SUPERSEDED_BY: absent, PENDING: absent,
                                                  UNIT_TIME: "i:" + absent}),
                                 (ON_KEY, no_key, {UNIT_TIME: "k:" + no_key, DISPUTES: no_key, RESOLUTIONS: no_key})):
            before = sum(graph.names.values())
            found = source.answer(part, key)
            assert sum(graph.names.values()) == before + 1, graph.names  # the read itself, and nothing more
            reference = whole_state_answer(knowledge, part, key)
            for other, at in shown.items():
                assert found[other][at] == reference[other][at] and not found[other][at], (other, found)
                source.answer(other, at)
            assert sum(graph.names.values()) == before + 1, graph.names
        live = sorted(i for i, rec in knowledge.items.items() if rec.live() and rec.kind == "fact")
        raw = {"kind": "fact", "body": {"s": "gauge", "r": "reads", "o": 7}, "source": "person",
               "derived_from": live[:2]}
        graph.names.clear()
        planned = plan_from_graph(graph, lambda state: planning.plan_add(state, raw, by="ann"),  # type: ignore[arg-type]
                                  upto=head)
        assert planned.draft == planning.plan_add(knowledge, raw, by="ann")
        assert graph.names["item_reads_upto"] == 1, graph.names

        # Every unit's done time, read where nothing after the position wrote its node and where retractions did.
        done_at_head = dict(knowledge.order.time)
        units = {unit_of(rec) for rec in knowledge.items.values()}
        for item in live[:12]:
            if knowledge.items[item].live():
                service.journal.write("ann", lambda item=item: planning.plan_retract(knowledge, item, "test"))
        rewritten = backend.raw(service.graph, "MATCH (u:Unit)<-[:WROTE]-(e:Entry) WHERE e.seq > $head "
                                               "RETURN count(DISTINCT u)", {"head": head})[0][0]
        assert rewritten > 0  # some units take the fold, the rest their node
        with_items = PartsFromGraph(service.graph, head)
        with_items.read_items(sorted(i for i in knowledge.items if knowledge.items[i].learned_at <= head))
        alone = PartsFromGraph(service.graph, head)  # each unit's own statement, no item read before it
        for read in (with_items, alone):
            assert {u: read.answer(UNIT_TIME, u)[UNIT_TIME][u] for u in units} == {
                u: done_at_head.get(u) for u in units}
    finally:
        service.close()


def test_a_store_whose_graph_does_not_keep_what_a_write_reads_is_refused_not_misread(backend: Backend) -> None:
    """A store written before its graph kept the bookkeeping (its head has no `keeps`), or one whose entries
    lost their clock, is refused by the graph reader, naming the way out, rather than read wrongly."""
    from graph_service.from_graph.knowledge_region import BookkeepingMissing, plan_from_graph
    from graph_service.knowledge import planning

    service = Service.open(backend.whole_state_settings())
    try:
        knowledge = service.state.knowledge
        raw = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "red"}, "source": "person"}
        item = service.journal.write("ann", lambda: planning.plan_add(knowledge, raw, by="ann")).result["id"]
        retract = Entry(seq=2, op=ops.RETRACT, by="ann", at=0, payload={"id": item, "why": "wrong"})
        assert apply_from_graph(service.graph, retract, upto=1).applied[0].result
        backend.raw(service.graph, "MATCH (e:Entry) REMOVE e.clock")
        with pytest.raises(BookkeepingMissing):
            apply_from_graph(service.graph, retract, upto=1)
        backend.raw(service.graph, "MATCH (h:Head) REMOVE h.keeps")
        with pytest.raises(BookkeepingMissing, match="load it into a new store"):
            plan_from_graph(service.graph, lambda state: planning.plan_retract(state, item, "wrong"), upto=1)
    finally:
        service.close()


def test_every_entry_keeps_the_store_clock_after_it_on_every_write_path(backend: Backend, tmp_path: Any) -> None:
    """A single write, a bulk load and an import each store with an entry the clock after it: the sum of
    the ticks up to it."""
    from graph_service.domain import Draft
    from graph_service.knowledge.planning import plan_tick

    service = Service.open(backend.whole_state_settings())
    try:
        knowledge = service.state.knowledge
        service.journal.write("ann", lambda: plan_tick(knowledge, 2))
        service.journal.write("ann", lambda: Draft("note", {"text": "between"}, False))
        service.journal.write_batch("ann", [lambda: plan_tick(knowledge, 3),
                                            lambda: Draft("note", {"text": "b"}, False)])
        exported = list(service.journal.entries_after(0))
        clocks = dict(backend.raw(service.graph, "MATCH (e:Entry) RETURN e.seq, e.clock"))
    finally:
        service.close()
    assert clocks == {1: 2, 2: 2, 3: 5, 4: 5}
    imported_into = backend.fresh_store(tmp_path / "imported")
    other = Service.open(imported_into.whole_state_settings())
    try:
        other.journal.import_entries(exported)
        assert dict(imported_into.raw(other.graph, "MATCH (e:Entry) RETURN e.seq, e.clock")) == clocks
    finally:
        other.close()


def test_a_region_holds_the_whole_component_and_nothing_beyond_it(backend: Backend) -> None:
    """Two components: a premise chain with a superseding version, and an unrelated fact on a key of its
    own. A retraction's region is the first, whole, whichever of its items it names."""
    service = Service.open(backend.whole_state_settings())
    try:
        knowledge = service.state.knowledge

        def add(body: dict[str, Any], **extra: Any) -> str:
            from graph_service.knowledge.planning import plan_add

            return service.journal.write("ann", lambda: plan_add(
                knowledge, {"kind": "fact", "body": body, "source": "person", **extra}, by="ann")).result["id"]

        base = add({"s": "pump", "r": "rated", "o": 10})
        derived = add({"s": "pump", "r": "safe", "o": True}, derived_from=[base])
        newer = add({"s": "pump", "r": "rated", "o": 12}, supersedes=base)
        other = add({"s": "valve", "r": "rated", "o": 3})
        head = service.journal.seq
        for named in (base, derived, newer):
            members = region_members(service.graph, [(ops.RETRACT, {"id": named})], upto=head)
            assert members == {base, derived, newer}, named
        assert region_members(service.graph, [(ops.RETRACT, {"id": other})], upto=head) == {other}
        # As of a position before the later items, the region is what the graph held then.
        assert region_members(service.graph, [(ops.RETRACT, {"id": base})], upto=1) == {base}
    finally:
        service.close()


def test_where_a_region_starts() -> None:
    assert region_start(ops.RESOLVE, {"key": "k1", "value": "v"}) == RegionStart(keys=frozenset({"k1"}))
    assert region_start(ops.END_FLAG, {"flag": "flag-4"}) == RegionStart(flags=frozenset({"flag-4"}))
    assert region_start(ops.USED, {"ids": ["a", "b"], "wrong": False}).items == {"a", "b"}
    assert region_start(ops.REFUSED, {"why": "gate"}) == RegionStart()
    for op, payload in ((ops.TICK, {"k": 1}), (ops.SNAPSHOT, {}), (ops.FLAG, {"scope": {}, "why": "all"})):
        with pytest.raises(RegionUnknown):
            region_start(op, payload)


def test_the_check_of_the_api_modules_applies_each_knowledge_write_on_what_it_reads(
        backend: Backend, knowledge_reads_checked: Counter[str]) -> None:
    """The fixture test_api_knowledge and test_api_questions run under checks every knowledge write: here,
    writes through the journal are counted as checked (a mismatch would fail the fixture at teardown)."""
    from graph_service.errors import Conflict
    from graph_service.knowledge import planning

    service = Service.open(backend.whole_state_settings())
    try:
        knowledge = service.state.knowledge
        ids = []
        for value in ("red", "blue", "red"):
            raw = {"kind": "fact", "body": {"s": "door", "r": "colour", "o": value}, "source": "person"}
            ids.append(service.journal.write(
                "ann", lambda raw=raw: planning.plan_add(knowledge, raw, by="ann")).result["id"])
        service.journal.write("ann", lambda: planning.plan_retract(knowledge, ids[1], "wrong"))
        with pytest.raises(Conflict):  # a refusal is planned alike too
            service.journal.write("ann", lambda: planning.plan_retract(knowledge, ids[1], "again"))
    finally:
        service.close()
    assert knowledge_reads_checked["item.add"] == 3 and knowledge_reads_checked["item.retract"] == 1
    assert knowledge_reads_checked["plan plan_add"] == 3 and knowledge_reads_checked["plan plan_retract"] == 2
    assert knowledge_reads_checked["plans refused"] == 1
