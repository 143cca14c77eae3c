"""The items' statuses read from the graph (graph_service.from_graph.item_statuses), on a service that takes the
knowledge entries and the belief layer from it, on every backend: a start reads no status and applies nothing of
the knowledge entries the graph holds, and every item's status and presence, as the other domains ask them, is what
a replay gives; a bulk load ahead of the graph gives the same store."""

from __future__ import annotations

from pathlib import Path

from graph_service.from_graph.item_statuses import ItemStatuses
from graph_service.from_graph.knowledge import KnowledgeFromGraph
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.knowledge_histories import write_knowledge_history


def test_a_start_reads_no_status_and_every_status_is_the_replays(backend: Backend) -> None:
    memory = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(memory, 700, 19)
        entries = list(memory.journal.entries_after(0))
    finally:
        memory.close()
    service = Service.open(backend.whole_state_settings(knowledge="graph", beliefs="graph"))
    try:
        statuses, taken = service.state.statuses_taken, service.state.knowledge_taken
        assert isinstance(statuses, ItemStatuses) and isinstance(taken, KnowledgeFromGraph)
        assert statuses.reads == 0 and taken.applied == 0  # nothing of the knowledge entries was read or applied
        whole = replay(entries)
        ids = sorted(whole.knowledge.items)
        assert len(ids) > 100 and {whole.item_status(i) for i in ids} >= {"active", "retracted"}
        assert [service.state.item_status(i) for i in ids] == [whole.item_status(i) for i in ids]
        assert [service.state.present("item", i) for i in ids] == [whole.present("item", i) for i in ids]
        assert service.state.item_status("never-written") is None
        assert not service.state._item_status  # none kept
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_bulk_load_ahead_of_the_graph_gives_the_same_store(backend: Backend, tmp_path: Path) -> None:
    memory = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(memory, 500, 23)
        entries, fingerprints = list(memory.journal.entries_after(0)), memory.fingerprints()
    finally:
        memory.close()
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(knowledge="graph", beliefs="graph"))
    try:
        assert isinstance(service.state.statuses_taken, ItemStatuses)
        assert service.journal.import_entries(entries, batch_size=13) == len(entries)
        assert service.fingerprints() == fingerprints
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()
