"""A client of the API on a service that holds no knowledge state (GRAPH_SERVICE_KNOWLEDGE=graph), for the
modules that run the API's tests again that way: afterwards the store, opened the same way, verifies (the
graph holds exactly what a replay of the journal gives, every write's projection included). And a write made as
the API makes one on such a service, with the statements it ran and on which thread."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.beliefs.state import BeliefState
from graph_service.config import Settings
from graph_service.domain import Draft
from graph_service.from_graph.questions import GraphQuestions
from graph_service.from_graph.stream import GraphStream
from graph_service.journal.steps import run_steps_waiting
from graph_service.journal.store import WriteResult
from graph_service.knowledge import planning
from graph_service.service import Service


@contextmanager
def client_in_graph(settings: Settings, monkeypatch: pytest.MonkeyPatch, *, knowledge: bool = True,
                    beliefs: bool = False, stream: bool = False, questions: bool = False) -> Iterator[TestClient]:
    """The API on `settings` with the knowledge state (`knowledge`), the belief layer (`beliefs`), the stream's
    and statements' state (`stream`) and the unknowns and questions (`questions`) in the graph; every service it
    opened held none of them, and the store verifies after it, opened again the same way (a start that takes the
    knowledge entries as the graph holds them, and applies nothing of its entries to the others)."""
    settings = replace(settings, knowledge="graph" if knowledge else "memory", beliefs="graph" if beliefs else "memory",
                       stream="graph" if stream else "memory", questions="graph" if questions else "memory")
    opened: list[Service] = []
    choose = Service._choose_state

    def chosen(self: Service) -> bool:
        opened.append(self)
        return choose(self)

    def held_as_asked(service: Service) -> bool:
        return (service.knowledge_in_graph == knowledge and service.beliefs_in_graph == beliefs
                and service.stream_in_graph == stream and service.questions_in_graph == questions)

    monkeypatch.setattr(Service, "_choose_state", chosen)
    with TestClient(create_app(settings)) as c:
        yield c
    assert opened and all(held_as_asked(s) for s in opened)
    service = Service.open(settings)
    try:
        assert held_as_asked(service)
        assert not knowledge or not service.state.knowledge.items
        assert not beliefs or not isinstance(service.state.beliefs, BeliefState)
        assert not stream or isinstance(service.state.stream, GraphStream)
        assert not questions or isinstance(service.state.questions, GraphQuestions)
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def add_item(service: Service, raw: dict[str, Any], by: str = "ann") -> str:
    """Learn one item as its author would (planned through Service.plan_knowledge, so on whatever the service holds:
    the whole knowledge state or none); its id."""
    written = service.journal.write(by, lambda: service.plan_knowledge(lambda k: planning.plan_add(k, raw, by=by)))
    return str(written.result["id"])


def statements_recorded(service: Service, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Every statement the service's graph runs from now on: its name, and whether it ran on this thread (the event
    loop's, for `write_off_the_loop`)."""
    ran: list[tuple[str, bool]] = []
    loop_thread = threading.get_ident()
    run = service.graph.run

    def recorded(name: str, *args: Any, **kwargs: Any) -> Any:
        ran.append((name, threading.get_ident() == loop_thread))
        return run(name, *args, **kwargs)

    monkeypatch.setattr(service.graph, "run", recorded)
    return ran


def names_while(ran: list[tuple[str, bool]], act: Callable[[], object]) -> list[str]:
    """The names of the statements `act` runs (`ran`: the list statements_recorded keeps)."""
    ran.clear()
    act()
    return [name for name, _ in ran]


@contextmanager
def two_writers(settings: Settings) -> Iterator[tuple[Service, Service]]:
    """Two started services on one store, as two processes would be (the second connected to the first's)."""
    first = Service.open(settings)
    try:
        second = Service.connect(settings, first.graph.connection())
        try:
            second.start()
            yield first, second
        finally:
            second.close()
    finally:
        first.close()


def write_off_the_loop(service: Service, plan: Callable[[], Draft]) -> WriteResult:
    """A write as the API makes one on a service that plans on what it reads of the graph: the plan and every round
    trip in worker threads, the rest on the loop (api/context.journal_write)."""
    async def write() -> WriteResult:
        steps = service.journal.write_steps("ann", plan, plan_off_loop=True)
        return await run_steps_waiting(steps, anyio.to_thread.run_sync)

    return anyio.run(write)
