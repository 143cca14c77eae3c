"""Replaying the journal gives the incremental state: same fingerprint, versions and projections."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph_service.beliefs import fingerprint_of, rebuild
from graph_service.errors import UserError

from .harness import Harness, replay, row


def scenario() -> Harness:
    h = Harness()
    a = h.create("the reservoir is full", row(0.8, "actor:ann", root_kind="item", root_ids=["i1"]))
    b = h.create(
        "the reservoir is not full", row(0.5, "sensor:level", root_kind="observation", root_ids=["o1"])
    )
    h.do("evidence.add", {"belief": a, **row(0.4, "actor:bo", derivation="inference")})
    c = h.create("the dam is safe", row(0.7, "actor:cy", root_kind="belief", root_ids=[a]), subject="dam")
    h.do(
        "belief.associate",
        {
            "window_ms": 100,
            "observations": [
                {"id": "o2", "at": 0, "summary": "heavy rain"},
                {"id": "o3", "at": 50, "summary": "the spillway opened"},
            ],
        },
    )
    h.do("belief.correct", {"kind": "do_not_infer", "proposition": "the dam is haunted"}, by="op")
    h.do("belief.create", {"proposition": "the dam is haunted tonight"})
    h.items_retracted("i1")
    h.do("belief.correct", {"kind": "inaccurate", "root_kind": "observation", "root_id": "o1"}, by="op")
    h.do("belief.correct", {"kind": "wrong", "belief": b}, by="op")
    h.create("the barrier is safe", row(0.6, "actor:di"), subject="barrier")
    h.do("belief.correct", {"kind": "same_entity", "subject": "dam", "other": "barrier"}, by="op")
    h.do("belief.pin", {"belief": c, "status": "accepted"}, by="op")
    return h


def test_replay_equals_incremental_state_and_projections():
    h = scenario()
    again = replay(h.log)
    assert again.fingerprint_rows() == h.state.fingerprint_rows()
    assert fingerprint_of(again.fingerprint_rows()) == fingerprint_of(h.state.fingerprint_rows())
    assert {b.id: b.version for b in again.beliefs.values()} == {b.id: b.version for b in h.state.beliefs.values()}
    assert again.refusals == h.state.refusals and len(h.state.refusals) == 1

    replayed = Harness()
    for entry in h.log:
        if replayed.state.handles(entry.op):
            replayed.applied.append(replayed.state.apply(entry))
        else:
            replayed.applied.append(replayed.state.roots_gone("item", entry.payload["ids"], entry))
    assert [a.projection.as_params() for a in replayed.applied] == [
        a.projection.as_params() for a in h.applied
    ]


def test_rebuild_of_belief_entries_alone():
    h = Harness()
    h.create("the bakery opens early", row(0.6, "actor:ann"))
    h.create("the bakery does not open early", row(0.6, "actor:bo"))
    assert rebuild(h.log).fingerprint_rows() == h.state.fingerprint_rows()
    assert rebuild([]).fingerprint_rows() == []


PROPOSITIONS = [
    "the gate is open",
    "the gate is not open",
    "the gate is shut",
    "the road is open",
    "it is raining",
]
step = st.one_of(
    st.tuples(st.just("create"), st.sampled_from(PROPOSITIONS), st.floats(0, 1), st.sampled_from("ABC")),
    st.tuples(st.just("add"), st.integers(0, 9), st.floats(0, 1), st.sampled_from("ABC"), st.booleans()),
    st.tuples(st.just("retract"), st.integers(0, 30)),
    st.tuples(st.just("wrong"), st.integers(0, 9)),
    st.tuples(st.just("gone"), st.sampled_from(["i1", "i2"])),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, max_size=14))
def test_random_histories_replay_to_the_same_state(steps):
    h = Harness()
    for s in steps:
        beliefs, rows = sorted(h.state.beliefs), sorted(h.state.rows)
        try:
            if s[0] == "create":
                root = {"root_kind": "item", "root_ids": ["i1" if s[2] < 0.5 else "i2"]}
                h.do("belief.create", {"proposition": s[1], "evidence": [row(s[2], f"actor:{s[3]}", **root)]})
            elif s[0] == "add" and beliefs:
                direction = "for" if s[4] else "against"
                h.do(
                    "evidence.add",
                    {
                        "belief": beliefs[s[1] % len(beliefs)],
                        **row(s[2], f"actor:{s[3]}", direction=direction),
                    },
                )
            elif s[0] == "retract" and rows:
                h.do("evidence.retract", {"evidence": rows[s[1] % len(rows)]})
            elif s[0] == "wrong" and beliefs:
                h.do("belief.correct", {"kind": "wrong", "belief": beliefs[s[1] % len(beliefs)]}, by="op")
            elif s[0] == "gone":
                h.items_retracted(s[1])
        except UserError:
            pass  # refused at planning: nothing was written
    again = replay(h.log)
    assert again.fingerprint_rows() == h.state.fingerprint_rows()
    for b in h.state.beliefs.values():
        assert b.version == len(h.versions(b.id)) >= 1
        assert 0.02 <= b.confidence <= 0.98
