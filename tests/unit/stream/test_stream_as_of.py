"""An observer's rows as of a position, rebuilt from its Actor and Observation node histories
(graph_service.stream.as_of)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graph_service.errors import NotFound
from graph_service.history import HistoryMissing
from graph_service.stream.as_of import stream_at


def write(label: str, node: str, seq: int, changes: dict[str, Any] | None) -> dict[str, Any]:
    return {"label": label, "id": node, "seq": seq, "op": "x", "by": "ann", "at": seq,
            "changes": None if changes is None else json.dumps(changes)}


def row(seq: int, slot: int, tick: int, subject: str) -> dict[str, Any]:
    return write("Observation", f"obs-{seq}-{slot}", seq, {
        "observer": "cam", "tick": tick, "kind": "seen", "subject": subject, "magnitude": 0, "weight": 3,
        "first": True, "entry": seq, "name": f"seen {subject}"})


HISTORY = [
    write("Actor", "cam", 1, {"wordless": False, "observer": True, "name": "cam"}),
    row(5, 1, 9, "door"), row(5, 0, 9, "pump"), row(3, 0, 2, "gate"),
    write("Observation", "obs-5-0", 8, {"inaccurate": True, "inaccurate_seq": 8}),
    write("Observation", "obs-7-0", 7, {"kind": "message", "speaker": "ann", "text": "hi", "tick": 4, "entry": 7}),
]


def test_the_rows_as_of_a_position_are_those_written_by_then_in_write_order() -> None:
    assert stream_at(HISTORY, "cam", 2) == ()
    assert [r.id for r in stream_at(HISTORY, "cam", 4)] == ["obs-3-0"]
    rows = stream_at(HISTORY, "cam", 9)  # an inaccurate row stays; a message heard is no row of the stream
    assert [(r.id, r.seq, r.slot, r.subject) for r in rows] == [
        ("obs-3-0", 3, 0, "gate"), ("obs-5-0", 5, 0, "pump"), ("obs-5-1", 5, 1, "door")]


def test_an_observer_not_there_yet_is_not_found_and_a_history_that_does_not_reach_is_an_error() -> None:
    with pytest.raises(NotFound, match="observer cam is not declared"):
        stream_at(HISTORY, "cam", 0)
    with pytest.raises(NotFound):
        stream_at(HISTORY, "eye", 9)
    with pytest.raises(HistoryMissing):
        stream_at([*HISTORY, write("Observation", "obs-6-0", 6, None)], "cam", 9)
