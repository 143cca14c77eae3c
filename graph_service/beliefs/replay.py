"""Pure replay of the belief layer from journal entries."""

from __future__ import annotations

from collections.abc import Iterable

from graph_service.beliefs.state import BeliefState
from graph_service.journal.chain import Entry


def rebuild(entries: Iterable[Entry]) -> BeliefState:
    """The state the belief entries among `entries` give, applied in order (others are skipped).

    Cross-domain cascades (an item retracted by another domain) reach the belief layer through
    `roots_gone`, which the composing store calls during its own replay.
    """
    state = BeliefState()
    for entry in entries:
        if state.handles(entry.op):
            state.apply(entry)
    return state
