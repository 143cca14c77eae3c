"""A knowledge entry applied on only what its rules read (knowledge.partial), each part fetched as it is
asked for, does what it does on the whole store's state: the same projection and result, for every entry of
random histories that exercise every knowledge operation; and what it reads is a small part of the
component it sits in, which on the benchmark's mix is most of the store."""

from __future__ import annotations

import statistics
import types
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from graph_service.domain import Draft
from graph_service.journal.chain import Entry
from graph_service.knowledge import ops
from graph_service.knowledge.partial import (
    ITEMS,
    apply_answering,
    apply_from_whole_state,
    plan_from_whole_state,
    whole_state_answer,
)
from graph_service.partial_reads import NeedMore
from graph_service.questions.state import ANSWER_QUESTION
from graph_service.state import StoreState
from tests.integration.knowledge_histories import write_knowledge_history
from tests.knowledge_applies import check_every_entry, check_plans

# Every operation whose rules read only what they reach must be checked at least once.
CHECKED_OPS = {ops.ADD, ops.RETRACT, ops.ROLLBACK, ops.RECONFIRM, ops.USED, ops.FLAG, ops.END_FLAG,
               ops.RESOLVE, ops.TICK, ops.SNAPSHOT, ANSWER_QUESTION}


class _PureJournal:
    """Entries planned and applied one by one on a state, as the service's journal does, without a store."""

    def __init__(self, state: StoreState) -> None:
        self.state, self.entries = state, []  # type: ignore[var-annotated]

    def write_batch(self, by: str, plans: Iterable[Callable[[], Draft]], batch_size: int = 0) -> int:
        for plan in plans:
            draft = plan()
            entry = Entry(seq=len(self.entries) + 1, op=draft.op, by=by, at=1_700_000_000_000 + len(self.entries),
                          payload=draft.payload, prev="", hash="")
            self.state.apply(entry)
            self.entries.append(entry)
        return len(self.entries)


def history(n: int, seed: int) -> list[Entry]:
    service = types.SimpleNamespace(state=StoreState())
    service.journal = _PureJournal(service.state)
    write_knowledge_history(service, n, seed)  # type: ignore[arg-type]
    return service.journal.entries


@pytest.mark.parametrize("seed", [3, 17, 29, 41])
def test_each_knowledge_entry_applied_on_what_it_reads_does_what_it_does_on_the_whole_store(seed: int) -> None:
    entries = history(200, seed)
    checked, unknown, _ = check_every_entry(entries, lambda whole, entry: apply_from_whole_state(
        whole.knowledge, entry), (NeedMore,))
    assert set(checked) >= CHECKED_OPS, (checked, unknown)
    # A flag over everything (and a snapshot of everything) reads every item, the whole part, and is checked as
    # any other entry is; none is left unchecked.
    assert not unknown, unknown
    flags = [e.payload.get("scope") for e in entries if e.op == ops.FLAG]
    assert checked[ops.FLAG] == len(flags) and any(flags), (checked, flags)


@pytest.mark.parametrize("seed", [3, 17, 29, 41])
def test_each_knowledge_plan_run_on_what_it_reads_drafts_what_it_drafts_on_the_whole_store(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every planner call of the histories (the mix's, the extra knowledge writes', an answer's), run on only
    what it reads (knowledge.partial.plan_on_what_it_reads): the same draft, or the same refusal."""
    checks: Counter[str] = Counter()
    mismatches: list[Any] = []
    check_plans(monkeypatch, lambda state, plan: plan_from_whole_state(state, plan).draft, checks, mismatches)
    history(200, seed)
    assert not mismatches, mismatches[:3]
    assert {f"plan {name}" for name in ("plan_add", "plan_retract", "plan_flag", "plan_end_flag", "plan_tick",
                                        "plan_used")} <= set(checks), checks
    assert checks["plans refused"] > 0, checks


def test_a_write_reads_a_small_part_of_its_component() -> None:
    """On the benchmark's mix, whose facts chain into one component holding most items, an add or a
    retraction reads a few items of it, early and late in a long history (medians of every fifth in each
    window, against the component of the item learned last at the window's end)."""
    from benchmarks.pure_apply import entries

    whole = StoreState()
    windows = {"early": (800, 1_300), "late": (3_500, 4_000)}
    read: dict[str, list[int]] = {name: [] for name in windows}
    component: dict[str, int] = {}
    for entry in entries(4_000, 7):
        for name, (start, end) in windows.items():
            if start <= entry.seq < end and entry.op in (ops.ADD, ops.RETRACT) and entry.seq % 5 == 0:
                read[name].append(apply_from_whole_state(whole.knowledge, entry).fetched.count(ITEMS))
            if entry.seq == end - 1:
                component[name] = len(whole.knowledge.component(list(whole.knowledge.items)[-1:]))
        whole.apply(entry)
    for name in windows:
        assert component[name] > 150, component  # the mix: one component holds most items
        assert statistics.median(read[name]) * 20 < component[name], (name, statistics.median(read[name]), component)


def test_the_rules_read_ahead_what_they_read_in_turn_in_fewer_rounds() -> None:
    """Where a rule reads an item's dependents, a unit's members, or what lies up or down a level of units, it
    says so first (partial_reads.read_ahead), and a source that answers several keys at once gives them in one
    round: each entry of a history of the mix applies the same, reading the same items, in fewer rounds."""
    from benchmarks.pure_apply import entries

    whole = StoreState()
    rounds = {"one by one": 0, "read ahead": 0}
    compared = 0
    for entry in entries(1_500, 11):
        if entry.op in (ops.ADD, ops.RETRACT, ops.FLAG):
            knowledge = whole.knowledge
            one_by_one = apply_answering(entry, knowledge.clock,
                                         lambda part, key, k=knowledge: whole_state_answer(k, part, key))
            ahead = apply_from_whole_state(knowledge, entry)
            assert [a.projection for a in ahead.applied] == [a.projection for a in one_by_one.applied], entry.seq
            assert [a.result for a in ahead.applied] == [a.result for a in one_by_one.applied], entry.seq
            assert set(ahead.fetched.parts.get(ITEMS, {})) == set(one_by_one.fetched.parts.get(ITEMS, {})), entry.seq
            rounds["one by one"] += one_by_one.reads
            rounds["read ahead"] += ahead.reads
            compared += 1
        whole.apply(entry)
    assert compared > 300, compared
    assert rounds["read ahead"] * 3 < rounds["one by one"] * 2, rounds  # at least a third fewer rounds


def test_a_premise_closure_reads_a_level_of_premises_a_round() -> None:
    """The closure of what an item rests on (what an addition's consistency gate and a re-assertion's cycle check
    walk) asks for each level of premises at once: a source that answers several keys at once gives a level in
    one round, where item by item each premise costs one. The closure is the whole state's, nearest first."""
    from graph_service.knowledge import planning
    from graph_service.knowledge.partial import scratch_state, whole_state_answer_many
    from graph_service.partial_reads import Fetched, Reader

    journal = _PureJournal(StoreState())
    levels = [["root"], ["b0", "b1"], ["c0", "c1", "c2", "c3"], ["top"]]
    ids: dict[str, str] = {}
    for depth, names in enumerate(levels):
        for at, name in enumerate(names):
            below = levels[depth - 1] if depth else []  # each rests on every item a level down: diamonds
            raw = {"kind": "fact", "body": {"s": name, "r": "rests", "o": at}, "source": "person",
                   "derived_from": [ids[b] for b in below]}
            journal.write_batch("ann", [lambda raw=raw: planning.plan_add(journal.state.knowledge, raw, by="ann")])
            ids[name] = journal.entries[-1].payload["id"]
    whole = journal.state.knowledge
    expected = whole.premise_closure([ids["top"]])
    assert set(expected) == set(ids.values())

    def closure(answer_many: bool) -> tuple[list[str], int]:
        reader = Reader(lambda part, key: whole_state_answer(whole, part, key), Fetched(),
                        (lambda part, keys: whole_state_answer_many(whole, part, keys)) if answer_many else None)
        return scratch_state(reader, whole.clock).premise_closure([ids["top"]]), reader.reads

    (by_level, rounds), (by_item, item_rounds) = closure(True), closure(False)
    assert by_level == by_item == expected
    assert rounds == len(levels) < item_rounds == len(ids), (rounds, item_rounds)
