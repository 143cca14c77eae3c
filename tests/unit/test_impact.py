"""impact: what a retraction (or an observation marked inaccurate) would change, items and beliefs,
equals what the write then does, and computing it changes nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.impact import CopyOnRead, store_impact
from graph_service.knowledge import planning
from tests.unit.test_store_state import Log, belief_on, fact


def beliefs_now(log: Log) -> dict[str, tuple[str, float]]:
    return {b.id: (b.status, b.confidence) for b in log.state.beliefs.beliefs.values()}


def statuses_now(log: Log) -> dict[str, str]:
    return {i: r.status for i, r in log.state.knowledge.items.items()}


def test_the_issue_example_beliefs_fall_with_a_derived_item() -> None:
    log = Log()
    a = fact(log, "a", 1)
    b = fact(log, "b", 1, derived_from=[a])
    belief = belief_on(log, "b holds", [b])
    before = log.state.fingerprint()
    predicted = store_impact(log.state, items=[a])
    assert log.state.fingerprint() == before  # nothing written
    assert predicted.items == {a: ("active", "retracted"), b: ("active", "retracted")}
    assert list(predicted.beliefs) == [belief]
    then = predicted.beliefs[belief][1]
    log.write(planning.plan_retract(log.state.knowledge, a, "wrong"))
    assert beliefs_now(log)[belief] == (then["status"], then["confidence"])


def test_a_sandbox_map_never_changes_its_base() -> None:
    base = {"x": [1]}
    over: CopyOnRead[str, list[int]] = CopyOnRead(base)
    over["x"].append(2)
    over["y"] = [3]
    del over["x"]
    assert base == {"x": [1]} and "x" not in over and over["y"] == [3]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["fact", "derived", "belief", "impact", "again"]),
                          st.integers(0, 30), st.integers(0, 30)), min_size=4, max_size=40))
def test_impact_equals_what_the_retraction_then_does(steps: list) -> None:
    log = Log()
    items: list[str] = []
    n = 0
    for kind, x, y in steps:
        n += 1
        try:
            made: list[str | None] = []  # an add the gates refuse names no item
            if kind == "fact" or not items:
                made.append(fact(log, f"s{x % 6}", y % 3))
            elif kind == "derived":
                made.append(fact(log, f"d{x % 6}", y % 3, derived_from=[items[x % len(items)]]))
            elif kind == "again":
                base = fact(log, f"base{n}", 0)
                made.append(base)
                target = log.state.knowledge.items[items[x % len(items)]]
                if base is not None and "s" in target.body and target.kind == "fact":
                    made.append(fact(log, target.body["s"], target.body["o"], derived_from=[base]))
            elif kind == "belief":
                roots = list(dict.fromkeys([items[x % len(items)], items[y % len(items)]]))
                log.state.require_roots("item", roots, "evidence")
                belief_on(log, f"claim {n}", roots)
            else:
                target = items[x % len(items)]
                if log.state.knowledge.status(target) == "retracted":
                    continue
                fingerprint, statuses, beliefs = log.state.fingerprint(), statuses_now(log), beliefs_now(log)
                predicted = store_impact(log.state, items=[target])
                assert log.state.fingerprint() == fingerprint and beliefs_now(log) == beliefs
                log.write(planning.plan_retract(log.state.knowledge, target, "random"))
                after_items, after_beliefs = statuses_now(log), beliefs_now(log)
                assert predicted.items == {i: (statuses[i], s) for i, s in after_items.items()
                                           if statuses.get(i) != s}
                assert {b: (p["status"], p["confidence"]) for b, (_, p) in predicted.beliefs.items()} == {
                    b: v for b, v in after_beliefs.items() if beliefs.get(b) != v}
            items.extend(i for i in made if i is not None)
        except UserError:
            continue
