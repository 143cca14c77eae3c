"""Drive a StreamState the way the store does: plan, seal into the journal, apply."""

from __future__ import annotations

from typing import Any

from graph_service.domain import Applied
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.stream import StreamState


class Harness:
    """A StreamState with an in-memory journal (plan → seal → apply), as a store would run it."""

    def __init__(self, state: StreamState | None = None) -> None:
        self.state = state if state is not None else StreamState()
        self.entries: list[Entry] = []

    def write(self, op: str, **payload: Any) -> Applied:
        draft = self.state.plan(op, payload)
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, "test", 0, draft.payload)
        self.entries.append(entry)
        return self.state.apply(entry)
