"""Property: after every write the incremental state is the full replay's, and retractions are exact."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.knowledge import fingerprint_of, planning, rebuild

from .harness import Journal

SUBJECTS = ("a", "b", "c")
RELATIONS = ("size", "colour")
VALUES = (1, 2, 3)
SOURCES = ("person", "outcome", "spec", "verified", "model")
ACTIONS = (
    "add",
    "add",
    "add",
    "rule",
    "retract",
    "flag",
    "end_flag",
    "resolve",
    "tick",
    "rollback",
    "retire",
)


def graph_items(j: Journal, graph: dict[str, dict[str, Any]]) -> None:
    # The projection, applied as upserts, must leave every Item node equal to the state's row.
    assert j.last is not None
    for node in j.last.projection.nodes:
        if node.label == "Item":
            graph.setdefault(node.id, {}).update(node.props)


def step(j: Journal, data: st.DataObject) -> str | None:
    """Make one random write; return the id when it was a retraction."""
    state = j.state
    live = sorted(i for i, rec in state.items.items() if rec.live())
    action = data.draw(st.sampled_from(ACTIONS))
    if action == "add":
        body = {
            "s": data.draw(st.sampled_from(SUBJECTS)),
            "r": data.draw(st.sampled_from(RELATIONS)),
            "o": data.draw(st.sampled_from(VALUES)),
        }
        source = data.draw(st.sampled_from(SOURCES))
        premises = data.draw(st.lists(st.sampled_from(live), max_size=2, unique=True)) if live else []
        supersedes = data.draw(st.sampled_from([None, *live]))
        raw = {
            "kind": "fact",
            "body": body,
            "source": source,
            "of": "d-1",
            "derived_from": premises,
            "supersedes": supersedes,
            "reconfirm_after": data.draw(st.sampled_from([None, 2, 5])),
        }
        try:
            j.write(planning.plan_add(state, raw, by="p"))
        except UserError:
            return None
        return None
    if action == "rule":
        premises = data.draw(st.lists(st.sampled_from(live), max_size=1)) if live else []
        raw = {
            "kind": "rule",
            "body": {"n": data.draw(st.integers(0, 2))},
            "source": "person",
            "derived_from": premises,
        }
        with contextlib.suppress(UserError):  # resting on itself: refused before anything is written
            j.write(planning.plan_add(state, raw, by="p"))
        return None
    if action == "tick":
        j.tick(data.draw(st.integers(0, 4)))
        return None
    if action == "flag":
        if not live:
            return None
        if data.draw(st.booleans()):
            j.write(planning.plan_flag(state, ids=[data.draw(st.sampled_from(live))], why="drift"))
        else:
            j.write(planning.plan_flag(state, scope={}, why="everything drifted"))
        return None
    if action == "end_flag":
        pending = sorted(f for f, rec in state.flags.items() if rec.pending)
        if pending:
            j.write(planning.plan_end_flag(state, data.draw(st.sampled_from(pending))))
        return None
    if action == "resolve":
        disputes = state.disputes()
        if disputes:
            d = data.draw(st.sampled_from(disputes))
            value = data.draw(st.sampled_from(d["values"]))
            j.write(planning.plan_resolve(state, d["key"], int(value)))
        return None
    if not live:
        return None
    target = data.draw(st.sampled_from(live))
    if action == "retract":
        j.retract(target)
        return target
    if action == "rollback":
        j.write(planning.plan_rollback(state, target))
    else:
        j.write(planning.plan_retire(state, target))
    return None


# KNOWLEDGE_EXAMPLES raises the example count for a longer hunt (1,500 ran clean).
EXAMPLES = int(os.environ.get("KNOWLEDGE_EXAMPLES", "60"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_incremental_state_equals_full_replay_and_retraction_is_exact(data: st.DataObject) -> None:
    j = Journal()
    graph: dict[str, dict[str, Any]] = {}
    for _ in range(data.draw(st.integers(5, 25))):
        retracted = step(j, data)
        if j.last is None:
            continue
        graph_items(j, graph)
        replay = rebuild(j.entries)
        assert j.state.fingerprint() == replay.fingerprint()
        assert j.state.rows() == replay.rows()
        assert j.state.disputes() == replay.disputes()
        assert fingerprint_of(graph.values()) == j.state.fingerprint()
        if retracted is not None:
            assert j.state.fingerprint() == rebuild(j.entries, skip={retracted}).fingerprint()
