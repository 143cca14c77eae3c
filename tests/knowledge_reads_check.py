"""A store state that checks every knowledge entry it applies against the same entry applied on only what
its rules read from the graph (graph_service.from_graph.knowledge_region.apply_from_graph), and every knowledge plan
against the same planner run on what it reads there (plan_from_graph): the stateless write's reader,
cross-checked on the writes of whole API test modules before the in-memory copy is dropped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graph_service.domain import Applied, Draft
from graph_service.from_graph.knowledge_region import apply_from_graph, plan_from_graph
from graph_service.journal.chain import Entry
from graph_service.journal.store import Journal
from graph_service.knowledge.as_of import knowledge_ops
from graph_service.knowledge.state import KnowledgeState
from graph_service.partial_reads import NeedMore
from graph_service.service import Service
from graph_service.state import StoreState
from graph_service.storage.port import GraphPort
from tests.knowledge_applies import Recorded, check_plans, disagreements, plain


class CheckedStoreState(StoreState):
    """StoreState, with each knowledge entry also applied on what it reads from `graph` as of the entry
    before (when the graph holds that one's projection: a bulk load's batch in flight does not), and any
    difference in projection, result or done times kept in `mismatches`."""

    def __init__(self, graph: GraphPort, checks: Counter[str], mismatches: list[Any]) -> None:
        super().__init__()
        self._graph, self._checks, self._mismatches = graph, checks, mismatches

    def reset(self) -> None:
        self.__init__(self._graph, self._checks, self._mismatches)  # type: ignore[misc]

    def apply(self, entry: Entry) -> Applied:
        carried = knowledge_ops(entry.op, entry.payload)
        region = None
        if carried and self.position == entry.seq - 1 and self._projected_through(entry.seq - 1):
            try:
                region = apply_from_graph(self._graph, entry, upto=entry.seq - 1)
            except NeedMore:
                self._checks["whole store"] += 1
        seen: list[Recorded] = []
        apply = self.knowledge.apply

        def recorded(sub: Entry) -> Applied:
            applied = apply(sub)
            seen.append((sub, plain(applied.projection), applied.result, dict(self.knowledge.scheduled),
                         dict(self.knowledge.expiry.changes)))
            return applied

        self.knowledge.apply = recorded  # type: ignore[method-assign]
        try:
            applied = super().apply(entry)
        finally:
            del self.knowledge.apply
        if region is not None:
            self._mismatches += disagreements(region, seen)
            self._checks[entry.op] += 1
        return applied

    def _projected_through(self, seq: int) -> bool:
        return self._graph.run("head_read")[0]["projected"] >= seq


@pytest.fixture
def knowledge_reads_checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Every Service opened in the test keeps a CheckedStoreState, and every knowledge planner called on its
    knowledge state also plans on what it reads from the graph (knowledge_region.plan_from_graph); at the
    end, no knowledge entry applied, and no plan made, on what it read from the graph did otherwise than on
    the whole state."""
    checks: Counter[str] = Counter()
    mismatches: list[Any] = []
    states: list[CheckedStoreState] = []
    plain_init = Service.__init__

    def checked_init(self: Service, graph: GraphPort, settings: Any = None) -> None:
        plain_init(self, graph, settings)
        self.state = CheckedStoreState(graph, checks, mismatches)
        states.append(self.state)
        self.journal = Journal(graph, [self.state])

    def on_graph(knowledge: KnowledgeState, plan: Callable[[KnowledgeState], Draft]) -> Draft | None:
        # The planner runs on the state of the head it was applied to, which the graph holds once projected.
        for state in states:
            if state.knowledge is knowledge and state._projected_through(state.position):
                return plan_from_graph(state._graph, plan, upto=state.position).draft
        return None

    monkeypatch.setattr(Service, "__init__", checked_init)
    check_plans(monkeypatch, on_graph, checks, mismatches)
    yield checks
    assert not mismatches, mismatches
