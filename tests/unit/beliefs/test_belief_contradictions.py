"""Flipped-polarity contradictions: links, mutual counter-evidence, and settling that terminates."""

from __future__ import annotations

import pytest

from graph_service.beliefs.contradiction import TOLERANCE
from graph_service.beliefs.text import signature

from .harness import Harness, row


def counter_rows_match(h: Harness) -> None:
    for link in h.state.links.values():
        if not link.active:
            continue
        for owner, evidence_id in link.rows.items():
            source = link.b if owner == link.a else link.a
            evidence = h.state.rows[evidence_id]
            if not evidence.retracted:
                assert abs(evidence.weight - h.state.beliefs[source].confidence) <= TOLERANCE


def test_negation_is_read_from_words_and_contractions():
    assert signature("The well isn't dry").negated and signature("no train never stops").negated is False
    assert signature("the well is not dry").tokens == signature("the well is dry").tokens
    assert signature("it won't rain").tokens == frozenset({"it", "will", "rain"})


def test_creation_links_both_and_each_counters_the_other():
    h = Harness()
    a = h.create("the well is dry", row(0.8, "actor:ann"))
    applied = h.do(
        "belief.create", {"proposition": "the well is not dry", "evidence": [row(0.5, "sensor:w")]}
    )
    b = applied.result["belief"]
    assert {"event": "contradiction_detected", "a": b, "b": a, "how": "detected"} in applied.result["events"]
    assert ("CONTRADICTS", b, a) in {(e.rel, e.src, e.dst) for e in applied.projection.edges}
    assert h.state.partners(a) == [b] and h.state.partners(b) == [a]
    counter_rows_match(h)
    # a: for 0.48 (0.8 × 0.6), against = conf(b); b: for 0.3, against = conf(a): both in the contested band
    assert h.state.beliefs[a].status == "contested" and h.state.beliefs[b].status == "contested"
    assert h.state.beliefs[a].version == 2 and h.state.beliefs[b].version == 1
    counter = [r for r in h.state.evidence_of(a) if r.origin == "contradiction"]
    assert [(r.family, r.root_kind, r.root_ids) for r in counter] == [(f"belief:{b}", "belief", (b,))]


def test_gaining_support_compares_again():
    h = Harness()
    a = h.create("the pass is open", row(0.8, "actor:ann"))
    h.do("belief.pin", {"belief": a, "status": "rejected"}, by="op")
    b = h.create("the pass is not open", row(0.5, "actor:bo"))
    assert h.state.partners(b) == []  # a was not live
    h.do("belief.pin", {"belief": a, "status": None}, by="op")
    assert h.state.partners(a) == []  # unpinning is not gaining support
    applied = h.do("evidence.add", {"belief": a, **row(0.6, "actor:cy")})
    assert h.state.partners(a) == [b]
    assert any(e["event"] == "contradiction_detected" for e in applied.result["events"])
    counter_rows_match(h)


def test_subjects_must_agree():
    h = Harness()
    h.create("the door is locked", subject="house")
    b = h.create("the door is not locked", subject="shed")
    assert h.state.partners(b) == []


def test_a_rejected_partner_stops_countering():
    h = Harness()
    a = h.create("the river is high", row(0.8, "actor:ann"))
    b = h.create("the river is not high", row(0.4, "actor:bo"))
    h.do("belief.correct", {"kind": "wrong", "belief": b}, by="op")
    counter_in_a = [r for r in h.state.evidence_of(a) if r.origin == "contradiction"]
    assert all(r.retracted for r in counter_in_a)
    # back to a single family of 0.8: σ(1.5 × 0.8 × 0.6) = σ(0.72) = 0.67261
    assert h.state.beliefs[a].confidence == pytest.approx(0.6726070, abs=1e-6)


def test_proposed_paraphrase_contradiction_uses_the_same_arithmetic():
    h = Harness()
    a = h.create("the shop shut down", row(0.8, "actor:ann"))
    b = h.create("the shop is still trading", row(0.8, "actor:bo"))
    assert h.state.partners(a) == []
    applied = h.do("belief.contradict", {"a": a, "b": b, "reason": "paraphrase"}, by="model")
    assert {"event": "contradiction_detected", "a": a, "b": b, "how": "proposed"} in applied.result["events"]
    counter_rows_match(h)
    assert h.state.beliefs[a].confidence == pytest.approx(h.state.beliefs[b].confidence)


def test_a_dense_web_of_contradictions_settles():
    h = Harness()
    positives = [
        h.create(f"the tower {w} is leaning", row(0.9, f"actor:p{i}")) for i, w in enumerate("abcdef")
    ]
    for i in range(6):
        h.create(f"the tower {'abcdef'[i]} is not leaning", row(0.3 + 0.1 * i, f"actor:n{i}"))
    for i, b in enumerate(positives):
        h.do("evidence.add", {"belief": b, **row(0.7, f"actor:q{i}")})
    # "the tower a is leaning" and "the tower b is not leaning" share 4 of 6 tokens: every positive
    # contradicts every negative, a complete bipartite web of 36 links settled entry by entry.
    assert all(len(h.state.partners(b)) == 6 for b in positives)
    counter_rows_match(h)
    for b in h.state.beliefs.values():
        assert 0.02 <= b.confidence <= 0.98
