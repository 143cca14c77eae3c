"""A write of the belief layer on what it reads of the graph (beliefs.partial_write over
graph_service.from_graph.belief_write_parts), on every backend: each planner gives the whole layer's entry or
refusal at the head, and each entry of a history with writes of every kind (duplicates, do-not-infer refusals,
detected contradictions, entity merges and splits, associations, corrections) applies, on what it reads as of the
entry before it, exactly as on the whole layer there. What the graph keeps for it (keeps version 3) is what the
replay projects: verify passes."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from graph_service.beliefs.contradiction import CONTRADICTION_JACCARD
from graph_service.beliefs.partial import BELIEFS, BY_ROOT, PARTNERS, TALLIES
from graph_service.beliefs.partial_write import SIMILAR_BELIEFS, similar_key, write_state
from graph_service.beliefs.state import OPS, BeliefState
from graph_service.beliefs.text import signature
from graph_service.errors import UserError
from graph_service.from_graph import belief_parts as belief_parts_from_graph
from graph_service.from_graph import beliefs as beliefs_from_graph
from graph_service.from_graph.belief_parts import PAST_ENTRIES_LOOKED_AT
from graph_service.from_graph.belief_write_parts import BeliefWritePartsFromGraph
from graph_service.from_graph.beliefs import BeliefsFromGraph
from graph_service.partial_reads import Fetched, PartialMap, Reader
from graph_service.projection import KEEPS_BELIEF_TALLIES, KEEPS_BELIEF_WRITES
from graph_service.service import Service
from graph_service.state import replay
from tests.backends import Backend
from tests.integration.in_graph import names_while, statements_recorded, two_writers, write_off_the_loop
from tests.integration.knowledge_histories import write_knowledge_history
from tests.integration.test_beliefs_as_of import written_history
from tests.unit.beliefs.test_write_state import request, same_applied, same_plan


def _from_graph(service: Service, upto: int, base: tuple[int, int]) -> tuple[BeliefState, BeliefWritePartsFromGraph]:
    source = BeliefWritePartsFromGraph(service.graph, upto)
    return write_state(Reader(source.answer, Fetched()), base), source


@pytest.mark.parametrize("seed", [3, 11])
def test_a_belief_write_on_what_it_reads_of_the_graph_is_the_whole_layers(backend: Backend, seed: int) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        assert service.journal.keeps_at_least(KEEPS_BELIEF_WRITES)
        layer, rng = service.state.beliefs, random.Random(seed)
        planned = refused = 0
        for n in range(120):
            op, payload = request(layer, rng, n)
            scratch, _ = _from_graph(service, service.journal.seq, layer.running_fingerprint.sum())
            draft = same_plan(layer, scratch, op, payload)
            if draft is None:
                refused += 1
                continue
            service.journal.write("ann", lambda draft=draft: draft)
            planned += 1
        assert planned > 60 and refused > 5, (planned, refused)

        whole = BeliefState()
        seen: dict[str, int] = {}
        statements = []
        for entry in service.journal.entries_after(0):
            if entry.op not in OPS:
                continue
            scratch, source = _from_graph(service, entry.seq - 1, whole.running_fingerprint.sum())
            expected = whole.apply(entry)
            same_applied(scratch.apply(entry), expected)
            assert scratch.running_fingerprint.sum() == whole.running_fingerprint.sum()
            # A write's own parts cost a few statements a belief it touches or declines, whatever the store holds.
            made = len(expected.result["beliefs"]) + len(expected.result.get("refusals", ()))
            statements.append(source.statements)
            assert source.statements <= 4 + 4 * made, (entry.op, source.statements, made)
            kind = entry.payload.get("kind") if entry.op == "belief.correct" else None
            for name in [f"{entry.op}:{kind}" if kind else entry.op,
                         *(e["event"] for e in expected.result["events"])]:
                seen[name] = seen.get(name, 0) + 1
        assert {"belief.create", "belief.refused", "belief.associate", "belief.correct:same_entity",
                "belief.correct:different_entity", "belief.correct:inaccurate", "contradiction_detected",
                "inference_refused", "entities_merged"} <= set(seen), seen
        assert sum(statements) > len(statements)  # they were read from the graph, not from the whole layer
        assert service.verify().ok  # what the graph keeps for these reads is what a replay projects
    finally:
        service.close()


def test_a_subject_moved_by_a_merge_is_read_with_its_entity_then(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        beliefs = service.state.beliefs

        def write(op: str, payload: dict[str, Any]) -> None:
            service.journal.write("ann", lambda: beliefs.plan(op, payload))

        write("belief.create", {"proposition": "the pump is cold", "subject": "pump"})
        write("belief.create", {"proposition": "the pump is not cold", "subject": "valve"})
        merged_at = service.journal.seq + 1
        write("belief.correct", {"kind": "same_entity", "subject": "pump", "other": "valve"})
        write("belief.correct", {"kind": "different_entity", "subject": "pump", "other": "valve"})
        for upto, entity in ((merged_at - 1, "valve"), (merged_at, "pump"), (service.journal.seq, "valve")):
            state, _ = _from_graph(service, upto, (0, 0))
            assert state.entities.entity("valve") == entity, upto
            assert state.entities.entity("pump") == "pump"
    finally:
        service.close()


@pytest.mark.parametrize("knowledge", ["memory", "graph"])
def test_a_bulk_load_into_a_service_holding_no_belief_layer_writes_what_the_whole_layer_writes(
        backend: Backend, tmp_path: Path, knowledge: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bulk load applies each batch while the one before it is appended, so the graph does not hold the entry
    before it: the entries go on the scratch layer the entries since the last position the graph held were applied
    on (beliefs_from_graph), which starts again from what the graph holds after RUN_ENTRIES of them (here 40),
    making again the calls of those past it. Loaded so, in small batches, a history of the realistic mix with belief
    writes of every kind gives the graph and the fingerprints the service holding the whole layer gave it, and
    verifies."""
    monkeypatch.setattr(beliefs_from_graph, "RUN_ENTRIES", 40)
    query = "MATCH (b:Belief) RETURN b.id, b.status, b.confidence, b.version, b.entity"
    whole = Service.open(backend.whole_state_settings())
    try:
        written_history(whole, 160, 7)
        layer, rng = whole.state.beliefs, random.Random(7)
        for n in range(80):
            op, payload = request(layer, rng, n)
            try:
                whole.journal.write("ann", lambda op=op, payload=payload: layer.plan(op, payload))
            except UserError:
                continue
        entries, fingerprints = list(whole.journal.entries_after(0)), whole.fingerprints()
        beliefs = sorted(backend.raw(whole.graph, query))
    finally:
        whole.close()
    into = backend.fresh_store(tmp_path / "loaded")
    service = Service.open(into.whole_state_settings(beliefs="graph", knowledge=knowledge))
    try:
        assert service.beliefs_in_graph
        assert service.journal.import_entries(entries, batch_size=17) == len(entries)
        taken = service.state.beliefs_taken
        assert isinstance(taken, BeliefsFromGraph) and taken.applied == len(entries)
        assert taken.restarts >= len(entries) // 200, taken.restarts  # the run started again, many times
        # What is held of the layer is the scratch state of the entries past what the graph held, read as asked.
        assert isinstance(service.state.beliefs.beliefs, PartialMap)
        assert service.fingerprints() == fingerprints
        assert sorted(into.raw(service.graph, query)) == beliefs
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_belief_write_holding_no_layer_runs_no_statement_on_the_loop(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its plan reads only the graph, so it is a step (plan_off_loop), and what its application reads is read in a
    # step once the append landed (prepare): every statement runs in a worker thread, none on the loop's.
    service = Service.open(backend.whole_state_settings(beliefs="graph"))
    try:
        made = service.journal.write("ann", lambda: service.plan_beliefs(
            "belief.create", {"proposition": "the pump is cold", "subject": "pump",
                              "evidence": [{"weight": 0.8, "family": "f1"}]}))
        ran = statements_recorded(service, monkeypatch)
        contradicting = write_off_the_loop(service, lambda: service.plan_beliefs("belief.create", {
            "proposition": "the pump is not cold", "subject": "pump", "evidence": [{"weight": 0.6, "family": "f2"}]}))
        assert any(e["event"] == "contradiction_detected" for e in contradicting.result["events"])
        write_off_the_loop(service, lambda: service.plan_beliefs(
            "evidence.add", {"belief": made.result["created"][0], "weight": 0.5, "family": "f3"}))
        names = [name for name, _ in ran]
        assert "near_matches_upto" in names and "append_entry" in names, names  # it read and it wrote
        assert not [name for name, on_loop in ran if on_loop], ran
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_near_match_read_reads_the_postings_of_the_rarest_words(backend: Backend) -> None:
    """Any `probe_size` of a proposition's words find every near match; the read looks up the rarest (the counts
    the projection statement keeps on the Token nodes), so 'claim 7' among thirty 'claim <n>' reads the beliefs
    holding '7', not the thirty holding 'claim'; and a word no belief holds is rarer still."""
    service = Service.open(backend.whole_state_settings())
    try:
        for n in range(30):
            service.journal.write("ann", lambda n=n: service.state.beliefs.plan(
                "belief.create", {"proposition": f"claim {n}"}))
        counts = dict(backend.raw(service.graph, "MATCH (t:Token) RETURN t.id, t.beliefs"))
        assert counts["claim"] == 30 and counts["7"] == 1
        source = BeliefWritePartsFromGraph(service.graph, service.journal.seq)
        seven = service.state.beliefs.find_belief("claim 7", None)
        assert seven is not None
        for proposition, found in (("claim 7", {seven.id}), ("claim 99", set()), ("not claim 7", {seven.id})):
            words = signature(proposition).tokens
            read = source.answer(SIMILAR_BELIEFS, similar_key(words, CONTRADICTION_JACCARD))[SIMILAR_BELIEFS]
            assert set(read[similar_key(words, CONTRADICTION_JACCARD)]) == found, proposition
    finally:
        service.close()


def test_a_projection_written_again_counts_no_word_twice(backend: Backend) -> None:
    """A word's count is kept by the projection statement as it makes each HAS_TOKEN edge: a start that writes
    again projections the graph holds already (its projected marker set back) counts none of them twice."""
    service = Service.open(backend.whole_state_settings())
    try:
        for n in range(6):
            service.journal.write("ann", lambda n=n: service.state.beliefs.plan(
                "belief.create", {"proposition": f"claim {n}"}))
        head = service.journal.seq
    finally:
        service.close()
    graph = backend.open_graph()
    try:
        backend.raw(graph, "MATCH (h:Head) SET h.projected = $p", {"p": head - 3})
    finally:
        graph.close()
    service = Service.open(backend.whole_state_settings())
    try:
        assert service.journal.stored_head()["projected"] == head
        assert dict(backend.raw(service.graph, "MATCH (t:Token) RETURN t.id, t.beliefs"))["claim"] == 6
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_load_reads_the_near_matches_of_a_window_s_creations_at_once(
        backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A load announces each window of entries before it applies them (Journal._announced): the near matches of
    the propositions its creations make are read in one statement for the window (BeliefsFromGraph.read_ahead),
    not one a creation, and the load writes the same beliefs either way."""
    query = "MATCH (b:Belief) RETURN b.id, b.status, b.confidence, b.version"
    whole = Service.open(backend.whole_state_settings())
    try:
        written_history(whole, 300, 13)
        entries = list(whole.journal.entries_after(0))
    finally:
        whole.close()

    def load(name: str) -> tuple[list[list[Any]], int]:
        into = backend.fresh_store(tmp_path / name)
        service = Service.open(into.whole_state_settings(beliefs="graph"))
        try:
            ran = statements_recorded(service, monkeypatch)
            assert service.journal.import_entries(entries, batch_size=100) == len(entries)
            report = service.verify()
            assert report.ok, (report.chain, report.projection_difference)
            return sorted(into.raw(service.graph, query)), [n for n, _ in ran].count("near_matches_upto")
        finally:
            service.close()

    ahead, read_ahead = load("ahead")
    with monkeypatch.context() as patch:
        patch.setattr(BeliefsFromGraph, "read_ahead", lambda taken, entries: None)
        one_by_one, read_each = load("each")
    creations = sum(entry.op == "belief.create" for entry in entries)
    assert ahead == one_by_one
    assert creations > 40 and read_each >= creations and read_ahead < read_each / 2, (creations, read_ahead, read_each)


def test_the_rows_on_several_roots_are_read_in_one_round_as_each_alone(backend: Backend) -> None:
    """An entry that takes several items' rows with them (a retraction's cascade) reads the rows resting on all of
    them at once (answer_many), as reading each alone gives them."""
    service = Service.open(backend.whole_state_settings())
    try:
        write_knowledge_history(service, 60, 3)
        items = sorted(service.state.knowledge.items)[:6]
        for n, item in enumerate(items):
            if service.state.present("item", item):
                service.journal.write("ann", lambda n=n, item=item: service.state.beliefs.plan("belief.create", {
                    "proposition": f"rests on {n}", "evidence": [{"weight": 0.7, "family": f"f{n}",
                                                                  "root_kind": "item", "root_ids": [item]}]}))
        keys = [("item", item) for item in items]
        together = BeliefWritePartsFromGraph(service.graph, service.journal.seq)
        ran = together.answer_many(BY_ROOT, keys)
        alone = BeliefWritePartsFromGraph(service.graph, service.journal.seq)
        each = {key: alone.answer(BY_ROOT, key)[BY_ROOT][key] for key in keys}
        assert {key: ran[BY_ROOT][key] for key in keys} == each and sum(bool(rows) for rows in each.values()) >= 3
        assert together.statements == 1
    finally:
        service.close()


def test_consecutive_belief_writes_read_the_layers_running_sum_once_and_again_after_another_writers(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Holding nothing: a belief write reads the layer's running sum as of the head (fingerprint_upto) to keep it on
    # the graph; right after a belief write of this process's own that moved it, the sum there is known (what that
    # write kept), so no statement reads it; after an entry another process wrote, it is read again. The
    # fingerprints and the graph stay what a replay gives.
    with two_writers(backend.settings()) as (first, second):
        ran = statements_recorded(first, monkeypatch)

        def create(service: Service, n: int) -> list[str]:
            return names_while(ran, lambda: service.journal.write("ann", lambda: service.plan_beliefs(
                "belief.create", {"proposition": f"pump {n} is cold", "subject": f"pump-{n}",
                                  "evidence": [{"weight": 0.6, "family": "f"}]})))

        assert "fingerprint_upto" in create(first, 0)  # nothing known after a start
        assert "fingerprint_upto" not in create(first, 1)
        assert "fingerprint_upto" not in create(first, 2)
        create(second, 3)
        assert "fingerprint_upto" in create(first, 4)  # another writer's entry came between
        assert "fingerprint_upto" not in create(first, 5)
        entries = list(first.journal.entries_after(0))
        assert first.fingerprints() == replay(entries).fingerprints()
        report = first.verify()
        assert report.ok, (report.chain, report.projection_difference)


def test_a_belief_of_many_rows_is_read_with_its_rows_counted_and_as_of_its_past_with_them_folded(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # A belief that collects evidence: a write on it reads the counts of its live rows' values that the graph
    # keeps (beliefs_counted_now: its Tally nodes), not each row with its history (belief_evidence_step_upto),
    # which grow with the store; a read as of a position before its last write folds its rows' histories instead.
    # Either way the record, its tallies and its contradiction links are the whole layer's at that position.
    service = Service.open(backend.settings())
    try:
        def write(op: str, payload: dict[str, Any]) -> Any:
            return service.journal.write("ann", lambda: service.plan_beliefs(op, payload))

        hot = write("belief.create", {"proposition": "the pump is hot", "subject": "pump",
                                      "evidence": [{"weight": 0.6, "family": "f0"}]}).result["created"][0]
        rows = [write("evidence.add", {"belief": hot, "weight": (0.3, 0.5, 1 / 3)[n % 3], "family": f"f{n % 4}",
                                       "direction": "against" if n % 5 == 0 else "for"}).result["evidence"][0]
                for n in range(30)]
        cold = write("belief.create", {"proposition": "the pump is not hot", "subject": "pump",
                                       "evidence": [{"weight": 0.7, "family": "f9"}]})
        assert any(e["event"] == "contradiction_detected" for e in cold.result["events"])
        for row in rows[::4]:
            write("evidence.retract", {"evidence": row})
        past = service.journal.seq
        for n in range(6):
            write("evidence.add", {"belief": hot, "weight": 0.5, "family": f"f{n % 2}"})
        ran = statements_recorded(service, monkeypatch)
        names = names_while(ran, lambda: write("evidence.add", {"belief": hot, "weight": 0.5, "family": "f1"}))
        assert "beliefs_counted_now" in names and "belief_evidence_step_upto" not in names, names

        beliefs = [hot, cold.result["created"][0]]
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        # At the head nothing is past the read; one entry back, the last write on `hot` is (so `hot` is folded);
        # with fewer entries looked at than lie past the position, every belief is taken as written past it; on a
        # store whose graph does not keep the Tally nodes (written before it did), every belief is folded.
        for upto, looked_at, tallies_kept, read, written in (
                (head, PAST_ENTRIES_LOOKED_AT, True, "beliefs_counted_now", set()),
                (head - 1, PAST_ENTRIES_LOOKED_AT, True, "belief_evidence_step_upto", {hot}),
                (past, PAST_ENTRIES_LOOKED_AT, True, "belief_evidence_step_upto", {hot}),
                (past, 3, True, "belief_evidence_step_upto", None),
                (head, PAST_ENTRIES_LOOKED_AT, False, "belief_evidence_step_upto", set())):
            monkeypatch.setattr(belief_parts_from_graph, "PAST_ENTRIES_LOOKED_AT", looked_at)
            whole = replay(entries[:upto]).beliefs
            source = BeliefWritePartsFromGraph(service.graph, upto, tallies_kept)
            past_writes = source._written_past()
            if written is None or not written:
                assert past_writes == written, upto
            else:
                assert past_writes is not None and written <= past_writes, (upto, past_writes)
            names = names_while(ran, lambda source=source: source.read_beliefs(beliefs))
            assert read in names and (tallies_kept or "beliefs_written_after" not in names), names
            for belief in beliefs:
                record, expected = source._parts[BELIEFS][belief], whole.beliefs[belief]
                assert (record.breakdown, record.status, record.version) == \
                    (expected.breakdown, expected.status, expected.version), (upto, belief)
                tallies = {key: (t.primary, t.derived, t.primary_sum, t.legacy_rows)
                           for key, t in source._parts[TALLIES][belief].items()}
                assert tallies == {key: (t.primary, t.derived, t.primary_sum, t.legacy_rows)
                                   for key, t in whole._tallies[belief].items()}, (upto, belief)
                assert source._parts[PARTNERS][belief] == whole._partners.get(belief, {}), (upto, belief)
        assert service.fingerprints() == replay(entries).fingerprints()
        report = service.verify()
        assert report.ok, (report.chain, report.projection_difference)
    finally:
        service.close()


def test_a_store_written_before_the_graph_kept_the_tallies_keeps_its_belief_layer_in_memory(
        backend: Backend, caplog: pytest.LogCaptureFixture) -> None:
    # Its beliefs have no Tally nodes: a write reading them as they are now would count no live row.
    service = Service.open(backend.whole_state_settings())
    try:
        created = service.journal.write("ann", lambda: service.plan_beliefs("belief.create", {
            "proposition": "the pump is hot", "evidence": [{"weight": 0.6, "family": "f0"}]})).result["created"][0]
        backend.raw(service.graph, "MATCH (t:Tally) DETACH DELETE t", {})
        backend.raw(service.graph, "MATCH (h:Head) SET h.keeps = $keeps", {"keeps": KEEPS_BELIEF_TALLIES - 1})
    finally:
        service.close()
    service = Service.open(backend.whole_state_settings(beliefs="graph"))
    try:
        assert not service.beliefs_in_graph and type(service.state.beliefs) is BeliefState
        assert service.state.beliefs.beliefs[created].confidence > 0.5  # replayed into memory, as before
        assert "GRAPH_SERVICE_BELIEFS=graph: this store's graph was written before" in caplog.text
    finally:
        service.close()
