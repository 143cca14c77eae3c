"""beliefs.partial_write, pure: every write of the belief layer (its planners, each operation, a statement's
evidence, roots gone and back) on a scratch state that reads only what the rules touch, from a source built
from the whole layer's records, plans and applies exactly as the whole layer does, along random histories
that reach duplicates, do-not-infer refusals, detected contradictions, entity merges and splits, associations
and corrections of every kind."""

from __future__ import annotations

import copy
import random
from collections.abc import Hashable
from typing import Any

import pytest

from graph_service.beliefs.partial_write import (
    ENTITIES,
    ENTITY,
    INACCURATE,
    PATTERNS,
    REGISTRY,
    SIMILAR_BELIEFS,
    SIMILAR_PATTERNS,
    SUBJECT,
    TEXT,
    write_state,
)
from graph_service.beliefs.state import BeliefState
from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.partial_reads import Fetched, NeedMore, Reader
from tests.unit.beliefs.test_cascade_state import from_props

WORDS = ("the pump", "valve seven", "the north tank", "line four", "the old sensor")
STATES = ("is leaking", "is running", "is cold", "holds pressure", "was replaced")
SUBJECTS = ("pump", "valve", "tank", "line")


def from_layer(layer: BeliefState, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
    """What a source of the layer's parts gives at `key` (the cascade's from their node properties)."""
    if part == TEXT:
        return {TEXT: {key: list(layer._by_text.get(key, ())) or None}}  # type: ignore[call-overload]
    if part == SUBJECT:
        return {SUBJECT: {key: list(layer._by_subject.get(key, ())) or None}}  # type: ignore[call-overload]
    if part in (SIMILAR_BELIEFS, SIMILAR_PATTERNS):
        tokens, threshold = key  # type: ignore[misc]
        index = layer._text_index if part == SIMILAR_BELIEFS else layer._pattern_index
        records = layer.beliefs if part == SIMILAR_BELIEFS else layer.patterns
        found = {k: records[k].signature for k in index.similar(frozenset(tokens), threshold)}
        extra = {PATTERNS: {k: layer.patterns[k] for k in found}} if part == SIMILAR_PATTERNS else {}
        return {part: {key: found}, **extra}
    if part == PATTERNS:
        return {PATTERNS: {key: layer.patterns.get(key)}}  # type: ignore[call-overload]
    if part == INACCURATE:
        return {INACCURATE: {key: True if key in layer.inaccurate_roots else None}}
    if part == ENTITY:
        return {ENTITY: {key: layer.entities._entity.get(key)}}  # type: ignore[call-overload]
    if part == ENTITIES:
        return {ENTITIES: {REGISTRY: copy.deepcopy(layer.entities)}}
    return from_props(layer, part, key)


def scratch(layer: BeliefState) -> tuple[BeliefState, Reader]:
    reader = Reader(lambda part, key: from_layer(layer, part, key), Fetched())
    return write_state(reader, layer.running_fingerprint.sum()), reader


def proposition(rng: random.Random) -> str:
    negated = " not" if rng.random() < 0.4 else ""
    text = f"{rng.choice(WORDS)}{negated} {rng.choice(STATES)}"
    return text.replace(" not is", " is not").replace(" not was", " was not").replace(" not holds", " does not hold")


def request(layer: BeliefState, rng: random.Random, n: int) -> tuple[str, dict[str, Any]]:
    """A random request of the layer (some of which its planners refuse)."""
    beliefs = sorted(layer.beliefs)
    rows = sorted(layer.rows)
    roll = rng.random()
    if roll < 0.3 or not beliefs:
        payload: dict[str, Any] = {"proposition": proposition(rng), "evidence": [
            {"weight": round(rng.uniform(0.2, 0.9), 2), "family": f"f{rng.randrange(4)}"}]}
        if rng.random() < 0.6:
            payload["subject"] = rng.choice(SUBJECTS)
        if beliefs and rng.random() < 0.15:
            payload["supersedes"] = rng.choice(beliefs)
        return "belief.create", payload
    if roll < 0.45:
        root = rng.random()
        row: dict[str, Any] = {"belief": rng.choice(beliefs), "weight": round(rng.uniform(0.2, 0.9), 2),
                               "family": f"f{rng.randrange(6)}", "direction": rng.choice(("for", "against"))}
        if root < 0.3:
            row.update(root_kind="belief", root_ids=[rng.choice(beliefs)], derivation="inference")
        elif root < 0.5:
            row.update(root_kind="observation", root_ids=[f"obs-{rng.randrange(5)}"])
        return "evidence.add", row
    if roll < 0.55 and rows:
        return "evidence.retract", {"evidence": rng.choice(rows)}
    if roll < 0.6:
        return "belief.pin", {"belief": rng.choice(beliefs), "status": rng.choice((None, "accepted", "contested"))}
    if roll < 0.66:
        return "belief.contradict", {"a": rng.choice(beliefs), "b": rng.choice(beliefs)}
    if roll < 0.74:
        return "belief.correct", {"kind": "do_not_infer", "proposition": proposition(rng)}
    if roll < 0.78:
        return "belief.correct", {"kind": "wrong", "belief": rng.choice(beliefs)}
    if roll < 0.82:
        return "belief.correct", {"kind": "inaccurate", "root_kind": "observation",
                                  "root_id": f"obs-{rng.randrange(5)}"}
    if roll < 0.92:
        subject, other = rng.sample(SUBJECTS, 2)
        return "belief.correct", {"kind": rng.choice(("same_entity", "different_entity")), "subject": subject,
                                  "other": other}
    at = 1000 * n
    return "belief.associate", {"window_ms": 5000, "subject": rng.choice((None, *SUBJECTS)), "observations": [
        {"id": f"cue-{n}-{i}" if rng.random() < 0.8 else f"obs-{i}", "at": at + 100 * i,
         "summary": rng.choice(WORDS) + " " + rng.choice(STATES)} for i in range(rng.randint(2, 3))]}


def same_plan(whole: BeliefState, scratch: BeliefState, op: str, payload: dict[str, Any]) -> Draft | None:
    """The whole layer's draft for the request, which the scratch layer plans too; None when the whole layer
    refuses it, as the scratch layer then does, in the same words."""
    try:
        draft = whole.plan(op, payload)
    except UserError as refused:
        with pytest.raises(type(refused)) as also:
            scratch.plan(op, payload)
        assert str(also.value) == str(refused)
        return None
    assert scratch.plan(op, payload) == draft, (op, payload)
    return draft


def same_applied(got: Applied, expected: Applied) -> None:
    assert got.result == expected.result
    assert got.projection == expected.projection


def test_every_write_on_what_it_reads_is_the_whole_layers() -> None:
    seen: dict[str, int] = {}
    for seed in range(8):
        _history(random.Random(seed), seen)
    # The histories reached every kind of write, and every way a write reads more than its own records.
    assert {"belief.create", "belief.refused", "evidence.add", "evidence.retract", "belief.pin", "belief.contradict",
            "belief.associate", "belief.correct:wrong", "belief.correct:do_not_infer", "belief.correct:inaccurate",
            "belief.correct:same_entity", "belief.correct:different_entity", "contradiction_detected",
            "inference_refused", "entities_merged", "entities_split"} <= set(seen), seen


def _history(rng: random.Random, seen: dict[str, int]) -> None:
    layer = BeliefState()
    prev, seq = GENESIS, 0
    for n in range(160):
        op, payload = request(layer, rng, n)
        draft = same_plan(layer, scratch(layer)[0], op, payload)
        if draft is None:
            continue
        seq += 1
        entry = seal(prev, seq, draft.op, "ann", seq, draft.payload)
        prev = entry.hash
        before = copy.deepcopy(layer)
        state, _ = scratch(before)
        expected = layer.apply(entry)
        same_applied(state.apply(entry), expected)
        assert state.running_fingerprint.sum() == layer.running_fingerprint.sum()
        kind = draft.payload.get("kind") if draft.op == "belief.correct" else None
        name = f"{draft.op}:{kind}" if kind else draft.op
        seen[name] = seen.get(name, 0) + 1
        for name in ("contradiction_detected", "inference_refused", "entities_merged", "entities_split"):
            if any(e["event"] == name for e in expected.result["events"]):
                seen[name] = seen.get(name, 0) + 1
        if n % 5 == 0 and layer.beliefs:  # a statement's evidence, and rows going with a root and coming back
            _statement_and_roots(layer, rng, seq + 1000 * (n + 1))


def _statement_and_roots(layer: BeliefState, rng: random.Random, seq: int) -> None:
    entry = Entry(seq=seq, op="statement.say", by="bob", at=seq, payload={})
    specs = [{"proposition": proposition(rng), "direction": "for", "weight": 0.5, "credibility": 0.8,
              "derivation": "testimony", "family": "Bob", "root_kind": "observation", "root_id": f"msg-{seq}",
              "assertion_id": f"a{seq}.{i}"} for i in range(2)]
    state, _ = scratch(copy.deepcopy(layer))
    same_applied(state.evidence_from_statement(copy.deepcopy(specs), entry),
                 layer.evidence_from_statement(specs, entry))
    gone = Entry(seq=seq + 1, op="knowledge.retract", by="bob", at=seq, payload={})
    state, _ = scratch(copy.deepcopy(layer))
    same_applied(state.roots_gone("observation", [f"msg-{seq}"], gone),
                 layer.roots_gone("observation", [f"msg-{seq}"], gone))


def test_a_creation_reads_no_index_it_only_adds_to() -> None:
    layer = BeliefState()
    entry = seal(GENESIS, 1, "belief.create", "ann", 1, {"proposition": "the pump is cold", "epistemic_kind": "claim",
                                                         "subject": "pump", "evidence": [], "supersedes": None})
    state, reader = scratch(layer)
    state.apply(entry)
    read = set(reader.fetched.parts)
    # It reads the do-not-infer patterns and contradiction candidates of its proposition, and its subject's entity;
    # not the beliefs holding its text or about its subject (it adds to those blind).
    assert {SIMILAR_PATTERNS, SIMILAR_BELIEFS, ENTITY} <= read and not {TEXT, SUBJECT} & read, read


def test_what_no_source_gives_is_not_guessed() -> None:
    state = write_state(Reader(lambda part, key: {}, Fetched()))
    with pytest.raises(NeedMore):
        state.find_belief("the pump is cold", None)
    with pytest.raises(NeedMore):
        state.refusing_pattern("the pump is cold")
