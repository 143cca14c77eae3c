"""Hypothesis generation from notable observations, and the conversational turns it refuses."""

from __future__ import annotations

import pytest

from .harness import Harness


def obs(id: str, at: int, summary: str, **flags):
    return {"id": id, "at": at, "summary": summary, **flags}


def associate(h: Harness, *observations, window_ms: int = 60_000):
    return h.do(
        "belief.associate", {"window_ms": window_ms, "observations": list(observations)}, by="associator"
    )


def test_two_notable_observations_propose_a_weak_causal_hypothesis_with_alternatives():
    h = Harness()
    applied = associate(h, obs("o1", 0, "deployment of v2"), obs("o2", 30_000, "latency alert"))
    [proposal] = applied.result["proposed"]
    main = h.state.beliefs[proposal["belief"]]
    assert main.proposition == "deployment of v2 may have caused: latency alert"
    assert main.epistemic_kind == "hypothesis" and main.status == "hypothesis"
    # two observation families of 0.15: for 0.3, diversity 0.8; x = ln(1/3) + 0.36 = −0.738612 → 0.32330767
    assert main.confidence == pytest.approx(0.32330767252549975)
    assert [(r.weight, r.root_ids) for r in h.state.evidence_of(main.id)] == [
        (0.15, ("o1",)),
        (0.15, ("o2",)),
    ]
    alternatives = [h.state.beliefs[a].proposition for a in proposal["alternatives"]]
    assert alternatives == [
        "deployment of v2 and latency alert co-occurred by coincidence",
        "a third factor caused both deployment of v2 and latency alert",
    ]
    edges = {(e.rel, e.src_label, e.src, e.dst_label, e.dst) for e in applied.projection.edges}
    for alt in proposal["alternatives"]:
        assert ("ALTERNATIVE_TO", "Belief", alt, "Belief", main.id) in edges
    rooted = {(e.dst_label, e.dst) for e in applied.projection.edges if e.rel == "ROOTED_IN"}
    assert rooted == {("Observation", "o1"), ("Observation", "o2")}
    assert len(h.log) == 1  # one request, one entry


@pytest.mark.parametrize("flag", ["hypothetical", "question", "request"])
def test_conversational_turns_never_seed_a_hypothesis(flag):
    h = Harness()
    applied = associate(
        h, obs("o1", 0, "the power failed"), obs("o2", 1_000, "what if the fuse blew", **{flag: True})
    )
    assert applied.result["proposed"] == [] and not h.state.beliefs
    assert {
        "observations": ["o2"],
        "reason": f"conversational turn ({flag}) is not a world event",
    } in applied.result["refusals"]


def test_consecutive_turns_by_one_speaker_never_seed_one_but_an_exchange_may():
    h = Harness()
    same = associate(
        h,
        obs("t1", 0, "I moved the car", speaker="ann"),
        obs("t2", 1_000, "the alarm went off", speaker="ann"),
    )
    assert same.result["proposed"] == []
    assert {"observations": ["t1", "t2"], "reason": "consecutive turns by one speaker"} in same.result[
        "refusals"
    ]
    exchange = associate(
        h,
        obs("t3", 0, "I opened the window", speaker="ann"),
        obs("t4", 1_000, "the papers blew away", speaker="bo"),
    )
    assert len(exchange.result["proposed"]) == 1


def test_outside_the_window_and_not_notable_are_skipped():
    h = Harness()
    applied = associate(
        h,
        obs("o1", 0, "the door slammed"),
        obs("o2", 10, "a bird sang", notable=False),
        obs("o3", 120_000, "the lights flickered"),
    )
    assert applied.result["proposed"] == []
    reasons = {r["reason"] for r in applied.result["refusals"]}
    assert reasons == {"not notable", "outside the window"}


def test_do_not_infer_and_duplicates_are_refused_inside_the_same_entry():
    h = Harness()
    h.do(
        "belief.correct",
        {"kind": "do_not_infer", "proposition": "the full moon may have caused: the server crash"},
        by="op",
    )
    refused = associate(h, obs("o1", 0, "the full moon"), obs("o2", 5, "the server crash"))
    assert refused.result["proposed"] == []
    assert any(r["reason"].startswith("do not infer") for r in refused.result["refusals"])
    first = associate(h, obs("o3", 0, "a deploy"), obs("o4", 5, "an outage"))
    again = associate(h, obs("o3", 0, "a deploy"), obs("o4", 5, "an outage"))
    assert len(first.result["proposed"]) == 1 and again.result["proposed"] == []
    assert again.result["refusals"][0]["reason"].startswith("already proposed as")


def test_bad_observations_are_refused_before_anything_is_written():
    from graph_service.errors import UserError

    h = Harness()
    for payload, field in [
        ({"window_ms": 10, "observations": [obs("o1", 0, "a")]}, "observations"),
        ({"window_ms": 10, "observations": [obs("o1", 0, "a"), obs("o1", 1, "b")]}, "observations[1].id"),
        ({"window_ms": 10, "observations": [obs("o1", -1, "a"), obs("o2", 1, "b")]}, "observations[0].at"),
        (
            {"window_ms": 10, "observations": [obs("o1", 0, " "), obs("o2", 1, "b")]},
            "observations[0].summary",
        ),
        (
            {"window_ms": 10, "observations": [obs("o1", 0, "a", question="yes"), obs("o2", 1, "b")]},
            "observations[0].question",
        ),
    ]:
        with pytest.raises(UserError) as raised:
            h.state.plan("belief.associate", payload)
        assert raised.value.field == field
    assert not h.log and not h.state.beliefs
