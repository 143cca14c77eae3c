"""A node's states folded from what each entry changed (graph_service.history)."""

from __future__ import annotations

from graph_service.history import node_states, state_at


def row(seq: int, changes: str | None, op: str = "item.add") -> dict[str, object]:
    return {"label": "Item", "seq": seq, "op": op, "by": "ann", "at": 1000 + seq, "changes": changes}


def test_each_state_is_the_one_before_with_the_entry_s_changes() -> None:
    states = node_states([row(7, '{"status":"retracted","why":null}', "item.retract"),
                          row(3, '{"id":"k-1","status":"active","why":"seen"}')])
    assert [s.seq for s in states] == [3, 7]  # oldest first, whatever order the rows came in
    assert states[0].state == {"id": "k-1", "status": "active", "why": "seen"}
    assert states[1].state == {"id": "k-1", "status": "retracted"}  # a property set to null is removed
    assert states[1].changes == {"status": "retracted", "why": None} and states[1].op == "item.retract"


def test_a_write_from_before_history_was_kept_makes_what_follows_unknown() -> None:
    states = node_states([row(1, None), row(2, '{"status":"active"}')])
    assert [s.state for s in states] == [None, None]
    assert states[1].changes == {"status": "active"}


def test_the_state_as_of_a_position_is_the_last_write_at_or_before_it() -> None:
    states = node_states([row(3, '{"v":1}'), row(7, '{"v":2}')])
    assert state_at(states, 2) is None
    assert state_at(states, 3).state == {"v": 1}  # type: ignore[union-attr]
    assert state_at(states, 6).state == {"v": 1}  # type: ignore[union-attr]
    assert state_at(states, 100).state == {"v": 2}  # type: ignore[union-attr]
