"""The composed store state, pure: cross-domain effects and replays agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.beliefs.fingerprint import fingerprint_of
from graph_service.domain import Draft
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.knowledge import planning
from graph_service.state import StoreState, replay


class Log:
    """Append drafts to an in-memory journal and apply them, as the service does."""

    def __init__(self) -> None:
        self.state = StoreState()
        self.entries: list[Entry] = []

    def write(self, draft: Draft) -> object:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, "t", 0, draft.payload)
        self.entries.append(entry)
        return self.state.apply(entry).result


def test_a_retraction_equals_a_rebuild_without_the_item_for_beliefs_too() -> None:
    # Regression: a replay with skip kept evidence rooted in the skipped item alive.
    log = Log()
    k = log.state.knowledge
    item = log.write(planning.plan_add(k, {"kind": "fact", "body": {"s": "x", "r": "y", "o": 1},
                                          "source": "person"}, by="t"))["id"]
    log.write(log.state.beliefs.plan("belief.create", {"proposition": "x is y", "evidence": [
        {"weight": 0.9, "family": "f", "root_kind": "item", "root_ids": [item]}]}))
    assert log.state.beliefs.fingerprint_rows()[0][2] > 0.6  # the evidence counts while the item stands
    log.write(planning.plan_retract(k, item, "wrong"))
    assert log.state.beliefs.fingerprint_rows() == [("b2.1", "tentative", 0.5)]
    rebuilt = replay(log.entries, skip=[item])
    assert rebuilt.beliefs.fingerprint_rows() == log.state.beliefs.fingerprint_rows()
    assert rebuilt.fingerprint() == log.state.fingerprint()
    assert replay(log.entries).fingerprint() == log.state.fingerprint()


def fact(log: Log, s: str, o: object, derived_from: list[str] | None = None, source: str = "person") -> str:
    raw = {"kind": "fact", "body": {"s": s, "r": "is", "o": o}, "source": source}
    if derived_from:
        raw["derived_from"] = derived_from
    return log.write(planning.plan_add(log.state.knowledge, raw, by="t"))["id"]


def belief_on(log: Log, proposition: str, roots: list[str]) -> str:
    made = log.write(log.state.beliefs.plan("belief.create", {"proposition": proposition, "evidence": [
        {"weight": 0.9, "family": f"f-{r}", "root_kind": "item", "root_ids": [r]} for r in roots]}))
    return made["created"][0]


def test_a_row_on_an_item_that_falls_with_the_retracted_one_is_exact() -> None:
    # Regression (issue 15): fact a; b derived from a; a belief resting on b; retract a. The live
    # store retracted the row (b fell), a rebuild without a kept it live.
    log = Log()
    a = fact(log, "a", 1)
    b = fact(log, "b", 1, derived_from=[a])
    belief_on(log, "b holds", [b])
    log.write(planning.plan_retract(log.state.knowledge, a, "wrong"))
    assert log.state.knowledge.status(b) == "retracted"
    rebuilt = replay(log.entries, skip=[a])
    assert rebuilt.beliefs.fingerprint_rows() == log.state.beliefs.fingerprint_rows()
    assert rebuilt.fingerprint() == log.state.fingerprint() == replay(log.entries).fingerprint()


def test_a_row_is_live_again_when_its_item_returns() -> None:
    # Regression (issue 15): a row whose root fell and was asserted again on other support stayed
    # retracted, and the fingerprint differed from the rebuild.
    log = Log()
    a = fact(log, "a", 1)
    c = fact(log, "c", 1)
    b = fact(log, "b", 1, derived_from=[a])
    belief_id = belief_on(log, "b holds", [b])
    live = log.state.beliefs.fingerprint_rows()
    log.write(planning.plan_retract(log.state.knowledge, a, "wrong"))
    fallen = log.state.beliefs.fingerprint_rows()
    assert fallen != live
    assert fact(log, "b", 1, derived_from=[c]) == b  # the same item, on other support
    assert log.state.knowledge.status(b) == "active"
    assert log.state.beliefs.fingerprint_rows() == live  # the row counts again
    row = log.state.beliefs.evidence_of(belief_id)[0]
    assert not row.retracted and row.retract_reason is None
    assert replay(log.entries, skip=[a]).fingerprint() == log.state.fingerprint()
    assert replay(log.entries).fingerprint() == log.state.fingerprint()


def test_a_row_on_a_retracted_item_is_refused() -> None:
    # Regression (issue 15): a row written on an item already retracted was accepted live, counting in full.
    import pytest

    from graph_service.errors import Conflict

    log = Log()
    a = fact(log, "a", 1)
    log.write(planning.plan_retract(log.state.knowledge, a, "wrong"))
    with pytest.raises(Conflict, match="is retracted"):
        log.state.require_roots("item", [a], "evidence[0].root_ids")


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(["fact", "derived", "belief", "retract", "again"]),
                          st.integers(0, 30), st.integers(0, 30)), min_size=4, max_size=40))
def test_after_every_retraction_the_store_equals_its_rebuild_without_the_item(steps: list) -> None:
    """Random histories with beliefs rooted in derived items, items that fall and return, and late
    rows: after every retraction the whole fingerprint (items and beliefs) equals rebuild(skip)."""
    from graph_service.errors import UserError

    log = Log()
    items: list[str] = []
    n = 0
    for kind, x, y in steps:
        n += 1
        # An add the consistency gate refuses (it would rest on its own key's rival) names no item.
        items = [i for i in items if i is not None]
        try:
            if kind == "fact" or not items:
                items.append(fact(log, f"s{x % 6}", y % 3))
            elif kind == "derived":
                items.append(fact(log, f"d{x % 6}", y % 3, derived_from=[items[x % len(items)]]))
            elif kind == "again":  # re-assert a known item's content on a fresh premise
                base = fact(log, f"base{n}", 0)
                items.append(base)
                target = log.state.knowledge.items[items[x % len(items)]]
                body = target.body
                if "s" in body and target.kind == "fact":
                    items.append(fact(log, body["s"], body["o"], derived_from=[base]))
            elif kind == "belief":
                roots = [items[x % len(items)], items[y % len(items)]]
                log.state.require_roots("item", roots, "evidence")
                belief_on(log, f"claim {n}", list(dict.fromkeys(roots)))
            else:
                target = items[x % len(items)]
                if log.state.knowledge.status(target) == "retracted":
                    continue
                log.write(planning.plan_retract(log.state.knowledge, target, "random"))
                assert replay(log.entries, skip=[target]).fingerprint() == log.state.fingerprint(), target
        except UserError:
            continue
        # The beliefs' running fingerprint, kept as each entry moves them, is every belief's rows hashed.
        assert log.state.beliefs_fingerprint() == fingerprint_of(log.state.beliefs.fingerprint_rows())
    assert replay(log.entries).fingerprint() == log.state.fingerprint()
