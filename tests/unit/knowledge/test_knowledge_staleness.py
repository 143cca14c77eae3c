"""Staleness: flags, re-confirmation, rollback under a pending flag, the store clock and expiry."""

from __future__ import annotations

import pytest

from graph_service.errors import Conflict, NotFound, UserError
from graph_service.knowledge import planning, rebuild
from graph_service.knowledge.items import RECONFIRM_DEFAULTS

from .harness import Journal


def test_a_flag_makes_what_it_covers_a_hint_until_a_person_confirms() -> None:
    j = Journal()
    a = j.fact("x", "level", 1, source="spec", scope={"stream": "s1"})
    b = j.fact("y", "level", 1, source="spec", scope={"stream": "s2"})
    flag = j.write(planning.plan_flag(j.state, scope={"stream": "s1"}, why="drift on s1"))
    assert (j.status(a), j.status(b)) == ("hypothesis", "active")
    assert j.state.stale(a) and not j.state.stale(b)
    assert any(e.rel == "COVERS" and e.dst == a for e in j.last.projection.edges)
    j.fact("x", "level", 1, source="spec", scope={"stream": "s1"})  # a spec is not a re-confirmation
    assert j.state.stale(a)
    j.fact("x", "level", 1, source="person", scope={"stream": "s1"})
    assert (j.status(a), j.state.stale(a)) == ("active", False)
    later = j.fact("z", "level", 1, scope={"stream": "s1"})  # learned after the flag: not covered
    assert not j.state.stale(later)
    assert j.state.flags[flag].pending


def test_end_flag_makes_items_facts_again() -> None:
    j = Journal()
    a = j.fact("x", "level", 1)
    flag = j.write(planning.plan_flag(j.state, ids=[a], why="check"))
    assert j.status(a) == "hypothesis"
    assert j.write(planning.plan_end_flag(j.state, flag)) == {a: ("hypothesis", "active")}
    with pytest.raises(Conflict):
        planning.plan_end_flag(j.state, flag)
    with pytest.raises(NotFound):
        planning.plan_end_flag(j.state, "flag-999")


def test_flag_by_key_and_reconfirm_flag_one_item() -> None:
    j = Journal()
    a = j.fact("x", "level", 1)
    other = j.fact("x", "depth", 1)
    j.write(planning.plan_flag(j.state, key=j.state.items[a].key, why="open set"))
    assert (j.state.stale(a), j.state.stale(other)) == (True, False)
    flag = j.write(planning.plan_reconfirm(j.state, other, "a month passed"))
    assert flag.startswith("flag-") and j.state.stale(other)


def test_flag_needs_exactly_one_target_and_known_ids() -> None:
    j = Journal()
    a = j.fact("x", "level", 1)
    with pytest.raises(UserError, match="exactly one"):
        planning.plan_flag(j.state, ids=[a], scope={}, why="w")
    with pytest.raises(NotFound):
        planning.plan_flag(j.state, ids=["k-nope"], why="w")
    with pytest.raises(UserError, match="reason"):
        planning.plan_flag(j.state, ids=[a], why="")


def test_stale_reads_the_flags_not_the_status() -> None:
    j = Journal()
    a = j.fact("x", "level", 1)
    j.write(planning.plan_flag(j.state, ids=[a], why="drift"))
    j.fact("x", "level", 2)  # a dispute now sets the status; the flag is still pending
    assert j.status(a) == "disputed"
    assert j.state.stale(a)
    assert j.state.stale_reasons(a) == ["flag flag-2 pending: drift"]


def test_rollback_under_a_pending_flag_restores_a_hint_never_a_fact() -> None:
    j = Journal()
    v1 = j.fact("model", "threshold", 0.5)
    v2 = j.fact("model", "threshold", 0.7, supersedes=v1)
    flag = j.write(planning.plan_reconfirm(j.state, v2, "drift on the stream"))
    changes = j.write(planning.plan_rollback(j.state, v2, "supervision undid it"))
    assert changes[v2][1] == "retracted"
    assert changes[v1] == ("refuted", "hypothesis")
    snap = j.state.snapshot(about="model")
    assert [h["id"] for h in snap["hints"]] == [v1] and snap["facts"] == []
    assert j.state.stale(v1)
    j.write(planning.plan_end_flag(j.state, flag))
    assert j.status(v1) == "active"


def test_rollback_without_a_flag_restores_the_fact() -> None:
    j = Journal()
    v1 = j.fact("model", "threshold", 0.5)
    v2 = j.fact("model", "threshold", 0.7, supersedes=v1)
    assert j.write(planning.plan_rollback(j.state, v2)) == {
        v2: ("active", "retracted"),
        v1: ("refuted", "active"),
    }


def test_reconfirm_after_defaults_per_kind_and_source_and_tick_expires() -> None:
    assert RECONFIRM_DEFAULTS[("fact", "person")] is None
    assert RECONFIRM_DEFAULTS[("fact", "spec")] == 1000
    j = Journal()
    spec = j.fact("x", "limit", 3, source="spec")
    person = j.fact("y", "limit", 3)
    short = j.fact("z", "limit", 3, source="spec", reconfirm_after=5)
    derived = j.fact("w", "limit", 3, derived_from=[short])
    assert j.state.items[spec].props["reconfirm_after"] == 1000
    assert j.tick(4)["changes"] == {}
    result = j.tick(1)
    assert result == {
        "clock": 5,
        "changes": {short: ("active", "expired"), derived: ("active", "hypothesis")},
    }
    assert j.state.stale(short) and not j.state.stale(spec)
    j.tick(995)
    assert (j.status(spec), j.status(person)) == ("expired", "active")
    j.fact("z", "limit", 3, source="spec", reconfirm_after=5)  # re-asserted: the clock starts again
    assert (j.status(short), j.status(derived)) == ("active", "active")
    assert j.state.fingerprint() == rebuild(j.entries).fingerprint()


def test_negative_tick_is_refused() -> None:
    j = Journal()
    with pytest.raises(UserError, match="negative"):
        planning.plan_tick(j.state, -1)
    with pytest.raises(UserError):
        planning.plan_tick(j.state, 1.5)  # type: ignore[arg-type]
    assert j.entries == []


def test_retire_expires_until_asserted_again() -> None:
    j = Journal()
    skill = j.add("skill", {"steps": ["a", "b"]})["id"]
    assert j.write(planning.plan_retire(j.state, skill, "no longer compiled")) == {
        skill: ("active", "expired")
    }
    j.add("skill", {"steps": ["a", "b"]})
    assert j.status(skill) == "active"
