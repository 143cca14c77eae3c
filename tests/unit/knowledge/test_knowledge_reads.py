"""Snapshots, redecide, fingerprints, find, report, used, upstream and component."""

from __future__ import annotations

import pytest

from graph_service.errors import NotFound, UserError
from graph_service.knowledge import ITEM_FINGERPRINT_FIELDS, fingerprint_of, planning, rebuild, redecide

from .harness import Journal


def test_snapshot_gives_facts_and_hints_never_disputed_refuted_or_retracted() -> None:
    j = Journal()
    fact = j.fact("abt:1", "brand", "acme")
    base = j.fact("abt:1", "weight", 3)
    on_base = j.fact("abt:1", "shipping", "heavy", derived_from=[base])
    rule = j.add("rule", {"s": "abt:1", "r": "policy", "o": "hold"})["id"]
    j.write(planning.plan_reconfirm(j.state, rule, "policy may have changed"))
    j.fact("abt:1", "colour", "red")
    j.fact("abt:1", "colour", "blue")
    refuted = j.fact("abt:1", "size", 1)
    size = j.fact("abt:1", "size", 2, source="outcome")
    gone = j.fact("abt:1", "maker", "x")
    j.retract(gone)
    j.fact("other", "brand", "zeta")
    snap = j.write(planning.plan_snapshot(j.state, about="abt:1"))
    assert sorted(f["id"] for f in snap["facts"]) == sorted([fact, base, on_base, size])
    assert j.status(refuted) == "refuted"
    assert [h["id"] for h in snap["hints"]] == [rule]
    assert "flag" in " ".join(snap["hints"][0]["why"])
    assert snap["ids"] == sorted({fact, base, on_base, size, rule})
    assert snap["fingerprint"] == j.state.fingerprint()
    assert snap["position"] == j.entries[-1].seq
    assert snap["query"] == {"about": ["abt:1"], "relation": None, "scope": None, "kinds": None}
    read = {e.dst for e in j.last.projection.edges if e.rel == "READ"}
    assert read == {fact, base, on_base, size, rule}
    only_rules = j.state.snapshot(about="abt:1", kinds=["rule"])
    assert only_rules["facts"] == [] and len(only_rules["hints"]) == 1
    by_relation = j.state.snapshot(relation="brand")
    assert sorted(f["body"]["o"] for f in by_relation["facts"]) == ["acme", "zeta"]


def test_snapshot_planning_refuses_unknown_kinds() -> None:
    j = Journal()
    with pytest.raises(UserError, match="unknown kind"):
        planning.plan_snapshot(j.state, kinds=["belief"])


def test_redecide_splits_answer_changes_from_justification_only() -> None:
    j = Journal()
    brand = j.fact("abt:1", "brand", "acme")
    j.fact("abt:1", "brand", "acme", source="spec")
    colour = j.fact("abt:1", "colour", "red")
    j.write(planning.plan_snapshot(j.state, about="abt:1", relation="brand"))
    j.write(planning.plan_snapshot(j.state, about="abt:1"))
    j.write(planning.plan_snapshot(j.state, about="other"))

    def decide(snapshot: dict) -> dict:
        brands = [f["body"]["o"] for f in snapshot["facts"] if f["body"]["r"] == "brand"]
        return {"brand": brands[0] if brands else None}

    changes, justification = redecide(j.entries, [colour], decide)
    assert changes == []
    assert justification == [{"id": "snap-5", "old": {"brand": "acme"}, "new": {"brand": "acme"}}]
    changes, justification = redecide(j.entries, [brand], decide)
    assert [c["id"] for c in changes] == ["snap-4", "snap-5"]
    assert changes[0]["old"] == {"brand": "acme"}
    assert changes[0]["new"] == {"brand": None}


def test_fingerprint_is_computable_from_item_rows_and_covers_the_listed_fields() -> None:
    j = Journal()
    a = j.fact("a", "is", 1, valid=[10, 20])
    j.fact("b", "is", 1)
    j.retract(j.fact("c", "is", 1))
    rows = j.state.rows()
    assert fingerprint_of(rows) == j.state.fingerprint()
    assert fingerprint_of(reversed(rows)) == j.state.fingerprint()
    assert {"id", "status", "rank", "support", "valid_since", "valid_until"} == set(ITEM_FINGERPRINT_FIELDS)
    assert j.state.items[a].props["valid_since"] == 10
    changed = [dict(r, status="hypothesis") if r["id"] == a else r for r in rows]
    assert fingerprint_of(changed) != j.state.fingerprint()
    placeholder = [*rows, {"id": "k-bare"}]  # an edge end created without properties is not an item
    assert fingerprint_of(placeholder) == j.state.fingerprint()


def test_rebuild_upto_gives_the_store_as_it_was() -> None:
    j = Journal()
    a = j.fact("x", "size", 1)
    before = j.state.fingerprint()
    j.fact("x", "size", 2, source="outcome")
    old = rebuild(j.entries, upto=1)
    assert old.fingerprint() == before and old.status(a) == "active"
    assert rebuild(j.entries).fingerprint() == j.state.fingerprint()


def test_used_counts_in_each_record() -> None:
    j = Journal()
    a = j.fact("x", "size", 1)
    j.write(planning.plan_used(j.state, [a]))
    j.write(planning.plan_used(j.state, [a], wrong=True))
    assert (j.state.items[a].props["uses"], j.state.items[a].props["wrong_uses"]) == (2, 1)
    with pytest.raises(NotFound):
        planning.plan_used(j.state, ["k-nope"])


def test_find_disputes_report() -> None:
    j = Journal()
    a = j.fact("x", "size", 1)
    j.fact("x", "size", 2)
    rule = j.add("rule", {"when": "y"}, source="spec")["id"]
    j.add("fact", {"s": "q", "r": "r", "o": 1}, source="model")
    assert [r["id"] for r in j.state.find(status="disputed", s="x", o=1)] == [a]
    assert [r["id"] for r in j.state.find(kind=["rule"])] == [rule]
    assert j.state.find(source="spec")[0]["id"] == rule
    with pytest.raises(ValueError, match="unknown filter"):
        j.state.find(colour="red")
    report = j.state.report()
    assert report["by_status"] == {"active": 1, "disputed": 2}
    assert report["refused"] == 1 and report["open_disputes"] == 1
    assert report["by_whom"] == {"tester": 3}


def test_upstream_and_component() -> None:
    j = Journal()
    root = j.fact("r", "is", 1)
    mid = j.fact("m", "is", 1, derived_from=[root])
    top = j.fact("t", "size", 1, derived_from=[mid])
    rival = j.fact("t", "size", 2)
    rival_base = j.fact("rb", "is", 1)
    j.fact("t", "size", 2, derived_from=[rival_base])
    island = j.fact("i", "is", 1)
    assert j.state.upstream([top]) == {mid: 1, rival: 1, root: 2, rival_base: 2}
    assert j.state.dependents([root]) == {mid: 1, top: 2}
    assert j.state.component([root]) == {root, mid, top, rival, rival_base}
    assert j.state.component([island]) == {island}


def test_a_write_re_evaluates_only_its_component() -> None:
    j = Journal()
    for n in range(300):
        j.fact(f"bulk{n}", "is", n)
    root = j.fact("r", "is", 1)
    child = j.fact("c", "is", 1, derived_from=[root])
    assert {n.id for n in j.last.projection.nodes if n.label == "Item"} == {child}
    assert j.state.component([root]) == {root, child}
    j.retract(root)
    assert {n.id for n in j.last.projection.nodes if n.label == "Item"} == {root, child}
