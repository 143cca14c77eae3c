"""verify runs beside the service's writes (an admin starts it on a serving store): a write that lands while it reads
the chain or compares the graph is checked and replayed, never called a break or a difference, and what is really
wrong is still found. Both backends.

Before: a write landing between verify's last page of entries and its count of Entry nodes made it declare the chain
broken ("N+1 Entry nodes are stored but positions 1..N are all the chain holds"), and the service then refused every
write; one landing while it compared the graph made it report a difference."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator

import pytest

from benchmarks.service_shape import LOADER, mix
from graph_service.jobs import projected_graph
from graph_service.jobs.verifying import verify_store
from graph_service.journal.chain import Entry
from graph_service.journal.notes import plan_note
from graph_service.journal.store import Journal
from graph_service.knowledge import planning
from graph_service.service import Service
from tests.backends import Backend

ENTRIES = 80


@pytest.fixture
def service(backend: Backend) -> Iterator[Service]:
    loader = Service.open(backend.whole_state_settings())  # the mix plans on the whole state
    try:
        for plan in itertools.islice(mix(loader, ENTRIES, 5), ENTRIES):
            loader.journal.write(LOADER, plan)
    finally:
        loader.close()
    service = Service.open(backend.settings())  # served as `make serve` serves it
    try:
        yield service
    finally:
        service.close()


def live_items(backend: Backend, service: Service) -> list[str]:
    rows = backend.raw(service.graph, "MATCH (i:Item) WHERE i.status <> 'retracted' "
                                      "RETURN i.id ORDER BY i.id")
    assert rows, "the mix wrote no live item"
    return [row[0] for row in rows]


def retract(service: Service, item: str) -> None:
    service.journal.write("ann", lambda: service.plan_knowledge(lambda k: planning.plan_retract(k, item, "beside")))


def test_writes_landing_while_the_chain_is_read_are_checked_and_replayed(service: Service) -> None:
    head = service.journal.seq
    landed: list[int] = []

    def write_meanwhile(entry: Entry) -> None:
        if entry.seq in (3, head):  # while the pages are read, and after the last one, before the head is read
            landed.append(service.journal.write("ann", lambda: plan_note(f"beside {entry.seq}")).entry.seq)

    report = verify_store(service.graph, Journal(service.graph, []), on_entry=write_meanwhile)
    assert landed == [head + 1, head + 2]
    assert report.ok, report
    assert report.chain.checked == report.chain.head_seq == head + 2  # the two written meanwhile, checked too
    assert report.graph_fingerprint is None and report.replay_fingerprint == service.graph_fingerprint()
    # Nothing was judged broken: the service writes on.
    assert service.journal.write("ann", lambda: plan_note("after")).entry.seq == head + 3


def test_a_write_landing_while_the_graph_is_compared_is_replayed_not_called_a_difference(
        backend: Backend, service: Service) -> None:
    head = service.journal.seq
    item = live_items(backend, service)[0]
    # A retraction changes statuses (the fingerprints) and the nodes the replay compares.
    report = verify_store(service.graph, Journal(service.graph, []), on_compare=lambda: retract(service, item))
    assert report.ok, report
    assert report.chain.head_seq == head + 1
    assert report.graph_fingerprint is None and report.replay_fingerprint == service.graph_fingerprint()


def test_a_write_landing_while_each_batch_is_compared(backend: Backend, service: Service) -> None:
    """Writes between the comparison's batches (each a retraction the batch read after it may see): every one
    is caught up with, and the store is found sound."""
    items = iter(live_items(backend, service))
    head = service.journal.seq
    graph = service.graph
    written = 0

    class WritingBetweenReads:
        """The graph port, a retraction landing before each of the comparison's first reads."""

        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
            nonlocal written
            if name in ("projected_nodes_by_id", "projected_edges_by_ends") and written < 5:
                item = next(items, None)
                if item is not None:
                    retract(service, item)
                    written += 1
            return graph.run(name, params)

    report = verify_store(WritingBetweenReads(), Journal(graph, []))  # type: ignore[arg-type]
    assert written == 5
    assert report.ok, report
    assert report.chain.head_seq == head + written


def test_what_is_wrong_is_still_found_while_writes_land(backend: Backend, service: Service) -> None:
    first, second = live_items(backend, service)[:2]
    backend.raw(service.graph, "MATCH (i:Item {id: $id}) SET i.source = 'forged'", {"id": first})
    report = verify_store(service.graph, Journal(service.graph, []), on_compare=lambda: retract(service, second))
    assert not report.ok
    assert report.chain.ok  # the chain is whole; the graph is not what it gives
    assert report.projection_difference is not None and first in report.projection_difference
    assert "'source'" in report.projection_difference


def test_a_write_landing_on_an_empty_store_before_its_head_is_read(backend: Backend) -> None:
    """The pages read nothing, then a write lands before the head is read: the entry is read up to that head."""
    service = Service.open(backend.settings())
    try:
        graph = service.graph
        landed: list[int] = []

        class WritingBeforeTheHead:
            def __getattr__(self, name: str) -> object:
                return getattr(graph, name)

            def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
                if name == "head_read" and not landed:
                    landed.append(service.journal.write("ann", lambda: plan_note("first")).entry.seq)
                return graph.run(name, params)

        wrapped = WritingBeforeTheHead()
        report = verify_store(wrapped, Journal(wrapped, []))  # type: ignore[arg-type]
        assert landed == [1]
        assert report.ok, report
        assert report.chain.checked == report.chain.head_seq == 1
    finally:
        service.close()


def test_a_forged_item_is_found_while_writes_land_through_its_counts(backend: Backend, service: Service) -> None:
    """An Item node no entry made is seen only by the counts (the node comparison asks for the replay's nodes):
    writes landing during the counts' reads must not let it pass, nor be taken for it."""
    items = iter(live_items(backend, service))
    backend.raw(service.graph, "CREATE (:Item {id: 'forged', status: 'active', rank: 1})")
    graph = service.graph
    written = 0

    class WritingDuringCounts:
        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
            nonlocal written
            rows = graph.run(name, params)
            if name == "item_node_count" and written < 3:
                retract(service, next(items))
                written += 1
            return rows

    report = verify_store(WritingDuringCounts(), Journal(graph, []))  # type: ignore[arg-type]
    assert written == 3
    assert not report.ok and report.chain.ok
    made = backend.raw(graph, "MATCH (i:Item) RETURN count(i)")[0][0] - 1
    assert report.projection_difference == (f"the graph holds {made + 1} Item nodes at position "
                                            f"{report.chain.head_seq}, and a replay of the journal makes {made}: "
                                            "1 made by no entry")
    # Read to report the difference: the graph's, forged item and all.
    assert report.graph_fingerprint == service.graph_fingerprint() != report.replay_fingerprint


@pytest.mark.parametrize("forgery", ["CREATE (:Belief {id: 'forged', status: 'open', confidence: 0.5})",
                                     "CREATE (:Belief {id: 'forged'})", "CREATE (:Item {name: 'no id'})"])
def test_a_node_no_entry_made_is_found(backend: Backend, service: Service, forgery: str) -> None:
    """A Belief node, or an Item node without an id: neither is one the replay asks the graph for. A Belief node
    without a confidence has no fingerprint: the report says what differs all the same."""
    backend.raw(service.graph, forgery)
    report = verify_store(service.graph, Journal(service.graph, []))
    assert not report.ok and report.chain.ok
    assert report.projection_difference is not None and "1 made by no entry" in report.projection_difference
    assert ("Belief nodes" if "Belief" in forgery else "Item nodes") in report.projection_difference


def test_a_projection_on_its_way_for_seconds_is_waited_for_not_called_a_break(backend: Backend,
                                                                             service: Service) -> None:
    """A write's projection can wait seconds behind a long read (the embedded server runs a write only when no read
    is in flight). verify waited 0.5 s for a marker behind its head, then called the chain broken, and the service
    refused every write; it now waits journal.settled.QUIET_SECONDS."""
    head = service.journal.seq
    other = backend.another_connection(service.graph)
    # As between an append and its projection:
    backend.raw(other, "MATCH (h:Head) SET h.projected = $p", {"p": head - 1})
    projected_after = 2.0
    projection = threading.Timer(projected_after, lambda: backend.raw(
        other, "MATCH (h:Head) SET h.projected = $p", {"p": head}))
    started = time.monotonic()
    projection.start()
    try:
        report = verify_store(service.graph, Journal(service.graph, []))
    finally:
        projection.join()
        other.close()
    assert report.ok, report
    assert time.monotonic() - started >= projected_after  # it waited for the projection, and judged after it
    assert service.journal.write("ann", lambda: plan_note("after")).entry.seq == head + 1


def test_a_node_a_write_changed_after_it_was_compared_is_compared_again(
        backend: Backend, service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write lands after an item's batch was compared, and the graph holds it wrongly (here: forged as it lands,
    as a backend's faulty statement would). verify compared each node once, so it said the store was sound; the
    nodes the entries it caught up with wrote are now compared again."""
    monkeypatch.setattr(projected_graph, "BATCH", 1)  # a node a statement: the items in id order
    items = live_items(backend, service)
    graph = service.graph
    first_items: list[str] = []
    forged: dict[str, object] = {}

    class WritingAfterTheFirstItems:
        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
            asked = (params or {}).get(projected_graph.ids_param("Item")) if name == "projected_nodes_by_id" else None
            if first_items and not forged and asked != first_items:
                # After the first live item's batch: it is retracted and forged as it lands, and the live item of
                # the largest id, which a later batch compares, is retracted too (it differs there: verify catches
                # up with both writes).
                target = forged["id"] = next(i for i in first_items if i in items)
                retract(service, target)
                forged["source"] = backend.raw(graph, "MATCH (i:Item {id: $id}) RETURN i.source", {"id": target})[0][0]
                backend.raw(graph, "MATCH (i:Item {id: $id}) SET i.source = 'forged'", {"id": target})
                retract(service, live_items(backend, service)[-1])
            elif asked and not first_items and any(i in items for i in asked):  # type: ignore[attr-defined]
                first_items.extend(asked)  # type: ignore[arg-type]
            return graph.run(name, params)

    report = verify_store(WritingAfterTheFirstItems(), Journal(graph, []))  # type: ignore[arg-type]
    assert forged and first_items == [items[0]]
    assert not report.ok and report.chain.ok
    assert report.projection_difference == (f"node Item {forged['id']}: property 'source' is 'forged' in the "
                                            f"graph, {forged['source']!r} in a replay")


def test_a_write_landing_while_the_nodes_are_counted_is_compared_too(backend: Backend, service: Service) -> None:
    """The count of Item and Belief nodes comes after the comparison; a write landing during it is caught up with,
    and what it wrote is compared as well (here it is forged as it lands)."""
    item = live_items(backend, service)[0]
    graph = service.graph
    forged: dict[str, object] = {}

    class WritingDuringTheCount:
        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
            rows = graph.run(name, params)
            if name == "item_node_count" and not forged:
                retract(service, item)
                forged["source"] = backend.raw(graph, "MATCH (i:Item {id: $id}) RETURN i.source", {"id": item})[0][0]
                backend.raw(graph, "MATCH (i:Item {id: $id}) SET i.source = 'forged'", {"id": item})
            return rows

    head = service.journal.seq
    report = verify_store(WritingDuringTheCount(), Journal(graph, []))  # type: ignore[arg-type]
    assert forged and report.chain.ok and report.chain.head_seq == head + 1  # the retraction, caught up with
    assert report.projection_difference == (f"node Item {item}: property 'source' is 'forged' in the graph, "
                                            f"{forged['source']!r} in a replay")


def test_a_projection_stuck_while_the_nodes_are_counted_is_reported_once(
        backend: Backend, service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marker falls behind after the journal was checked and stays there (a writer that died between its append
    and its projection): the count says so after one wait, not after a wait for each of its COUNT_READS tries."""
    from graph_service.jobs import verifying
    from graph_service.journal import settled

    monkeypatch.setattr(settled, "QUIET_SECONDS", 0.5)
    head = service.journal.seq
    graph = service.graph

    class StuckDuringTheCount:
        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def run(self, name: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
            if name == "item_node_count":
                backend.raw(graph, "MATCH (h:Head) SET h.projected = $p", {"p": head - 1})
            return graph.run(name, params)

    started = time.monotonic()
    try:
        report = verify_store(StuckDuringTheCount(), Journal(graph, []))  # type: ignore[arg-type]
    finally:
        backend.raw(graph, "MATCH (h:Head) SET h.projected = $p", {"p": head})
    assert report.projection_difference == (f"the graph's projection stayed at position {head - 1} of {head} while "
                                            "verify counted its nodes: verify again once the service has caught up")
    assert time.monotonic() - started < verifying.COUNT_READS * settled.QUIET_SECONDS / 2
