"""The composed store state, pure: cross-domain effects and replays agree."""

from __future__ import annotations

from graph_service.domain import Draft
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.knowledge import planning
from graph_service.state import StoreState, replay


class Log:
    """Append drafts to an in-memory journal and apply them, as the service does."""

    def __init__(self) -> None:
        self.state = StoreState()
        self.entries: list[Entry] = []

    def write(self, draft: Draft) -> object:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, "t", 0, draft.payload)
        self.entries.append(entry)
        return self.state.apply(entry).result


def test_a_retraction_equals_a_rebuild_without_the_item_for_beliefs_too() -> None:
    # Regression: a replay with skip kept evidence rooted in the skipped item alive.
    log = Log()
    k = log.state.knowledge
    item = log.write(planning.plan_add(k, {"kind": "fact", "body": {"s": "x", "r": "y", "o": 1},
                                          "source": "person"}, by="t"))["id"]
    log.write(log.state.beliefs.plan("belief.create", {"proposition": "x is y", "evidence": [
        {"weight": 0.9, "family": "f", "root_kind": "item", "root_ids": [item]}]}))
    assert log.state.beliefs.fingerprint_rows()[0][2] > 0.6  # the evidence counts while the item stands
    log.write(planning.plan_retract(k, item, "wrong"))
    assert log.state.beliefs.fingerprint_rows() == [("b2.1", "tentative", 0.5)]
    rebuilt = replay(log.entries, skip=[item])
    assert rebuilt.beliefs.fingerprint_rows() == log.state.beliefs.fingerprint_rows()
    assert rebuilt.fingerprint() == log.state.fingerprint()
    assert replay(log.entries).fingerprint() == log.state.fingerprint()
