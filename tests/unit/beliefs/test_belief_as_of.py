"""Belief reads as of a position folded from node histories (graph_service.beliefs.as_of): a node's
properties then, the page order and cursors, a walk row's liveness then, a walk node's description."""

from __future__ import annotations

import random

import pytest

from graph_service.beliefs.as_of import belief_page, confidence_key, live_then, props_then, walk_node
from graph_service.history import HistoryMissing


def write(seq: int, changes: str | None, label: str = "Evidence") -> dict[str, object]:
    return {"label": label, "seq": seq, "op": "evidence.add", "by": "ann", "at": 1000 + seq, "changes": changes}


def test_a_node_then_is_its_writes_folded_and_unknown_when_one_predates_history() -> None:
    assert props_then([write(5, '{"retracted":true}'), write(2, '{"id":"e2.1","retracted":false}')], 9) == \
        {"id": "e2.1", "retracted": True}
    assert props_then([], 9) is None  # nothing had written it by then
    with pytest.raises(HistoryMissing) as missing:
        props_then([write(2, None), write(5, '{"retracted":true}')], 9)
    assert missing.value.field == "asOf" and "position 9" in str(missing.value)


def test_a_walk_row_goes_on_only_through_an_evidence_row_live_then() -> None:
    assert live_then({"id": "obs-1-0", "via": "e2.1", "since": 2}, 9)  # a step that carries no history
    assert live_then({"id": "e2.1", "writes": [write(2, '{"retracted":false}')]}, 9)
    assert not live_then({"id": "e2.1", "writes": [write(2, '{"retracted":false}'),
                                                    write(4, '{"retracted":true}')]}, 9)
    assert not live_then({"id": "e2.1", "writes": []}, 9)
    with pytest.raises(HistoryMissing):
        live_then({"id": "e2.1", "writes": [write(2, None)]}, 9)


def test_the_confidence_key_rounds_half_away_from_zero_as_cypher_does() -> None:
    assert confidence_key(0.5) == 500_000_000 and confidence_key(0.98) == 980_000_000
    assert 2.5e-09 * 1e9 == 2.5 and 6.5e-09 * 1e9 == 6.5  # exact halves: Python's round() would give 2 and 6
    assert (confidence_key(2.5e-09), confidence_key(6.5e-09)) == (3, 7)
    assert confidence_key(0.7000000004999) == 700_000_000 and confidence_key(0.7000000005001) == 700_000_001


def test_a_page_by_cursor_is_a_slice_of_the_whole_order() -> None:
    rng = random.Random(4)
    beliefs = [{"id": f"b{i}.1", "confidence": rng.choice((0.3, 0.5, rng.random())),
                "status": rng.choice(("likely", "tentative")), "subject": rng.choice(("a", "b", None)),
                "epistemic_kind": "claim"} for i in range(60)]
    for descending in (True, False):
        for status in (None, "likely"):
            whole = sorted((b for b in beliefs if status is None or b["status"] == status),
                           key=lambda b: ((-1 if descending else 1) * confidence_key(b["confidence"]), b["id"]))
            got, after = [], (None, None)
            while True:
                page = belief_page(beliefs, status=status, subject=None, kind=None, descending=descending,
                                   after_key=after[0], after_id=after[1], limit=7)
                assert page.total == len(whole)
                got.extend(p for _, p in page.rows)
                if not page.more:
                    break
                after = page.rows[-1][0], page.rows[-1][1]["id"]
            assert [b["id"] for b in got] == [b["id"] for b in whole]  # ties (0.3, 0.5) by id, no repeats
    only = belief_page(beliefs, status=None, subject="a", kind="claim", descending=True, after_key=None,
                       after_id=None, limit=500)
    assert only.rows and all(p["subject"] == "a" for _, p in only.rows) and not only.more


def test_a_walk_node_reads_as_belief_nodes_by_id_reads_it() -> None:
    assert walk_node("Belief", {"status": "likely", "proposition": "p", "confidence": 0.7}) == \
        walk_node("Belief", {"status": "likely", "proposition": "p", "confidence": 0.7, "retracted": True})
    assert walk_node("Evidence", {"direction": "for", "family": "f", "retracted": True}).gone
    observed = walk_node("Observation", {"kind": "seen", "subject": "door", "inaccurate": True})
    assert (observed.status, observed.summary, observed.gone) == ("seen", "door", True)
    assert walk_node("Observation", {"kind": "message", "text": "hi", "subject": "x"}).summary == "hi"
    assert walk_node("Item", {"status": "active", "summary": "a b c"}).summary == "a b c"
    assert walk_node("Item", None).status is None
