"""statement.say: the observation, one assertion node per claim, and the evidence specs handed back."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.domain import Applied
from graph_service.errors import UserError
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.statements import OP_SAY, StatementState
from graph_service.stream import OP_DECLARE, StreamState


class Store:
    """What a store does: plan with the right domain, seal the entry, apply it to every domain."""

    def __init__(self) -> None:
        self.stream = StreamState()
        self.statements = StatementState(self.stream)
        self.entries: list[Entry] = []

    def write(self, op: str, **payload: Any) -> Applied:
        domain = self.statements if self.statements.handles(op) else self.stream
        draft = domain.plan(op, payload)
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, "writer", 1_700_000_000_000, draft.payload)
        self.entries.append(entry)
        return domain.apply(entry)


def test_say_projects_observation_assertions_and_returns_evidence_specs() -> None:
    store = Store()
    store.write(OP_DECLARE, observer="villager")
    applied = store.write(
        OP_SAY, text="Bob said that the well is dry. Is it?", speaker="alice", tick=7, to="villager"
    )
    nodes = {(n.label, n.id): n.props for n in applied.projection.nodes}
    message = nodes[("Observation", "obs-2-0")]
    assert message["kind"] == "message" and message["text"] == "Bob said that the well is dry. Is it?"
    assert (message["speaker"], message["tick"], message["to"], message["claims"]) == (
        "alice",
        7,
        "villager",
        2,
    )
    assert message["conversational"] is True  # it contains a question
    first = nodes[("Assertion", "asr-2-0")]
    assert first["actor"] == "bob" and first["reported"] is True and first["factual"] is True
    assert first["notes"] and all(isinstance(n, str) for n in first["notes"])
    assert first["direction"] == "for" and first["weight"] == pytest.approx(0.9 * 0.5 * 0.855, abs=1e-4)
    second = nodes[("Assertion", "asr-2-1")]
    assert (second["modality"], second["factual"], second["weight"]) == ("question", False, None)
    assert ("Actor", "bob") in nodes and ("Actor", "alice") in nodes
    edges = {(e.rel, e.src, e.dst) for e in applied.projection.edges}
    assert edges == {
        ("OBSERVED_BY", "obs-2-0", "villager"),
        ("INTERPRETS", "asr-2-0", "obs-2-0"),
        ("INTERPRETS", "asr-2-1", "obs-2-0"),
        ("ATTRIBUTED_TO", "asr-2-0", "bob"),
        ("ATTRIBUTED_TO", "asr-2-1", "alice"),
    }
    applied.projection.as_params()  # only allowed labels, edges and scalar properties
    assert applied.result == [
        {
            "proposition": "the well is dry",
            "direction": "for",
            "weight": first["weight"],
            "credibility": 1.0,
            "family": "bob",
            "root_kind": "observation",
            "root_id": "obs-2-0",
            "assertion_id": "asr-2-0",
            "derivation": "assertion",
        }
    ]


def test_non_factual_statements_hand_back_no_evidence() -> None:
    store = Store()
    for text in (
        "Suppose the well is dry.",
        "Is the well dry?",
        "Fetch water.",
        "Yeah right, the well is dry.",
    ):
        assert store.write(OP_SAY, text=text, speaker="alice", tick=1).result == []


def test_a_wordless_observer_refuses_statements_before_anything_is_written() -> None:
    store = Store()
    store.write(OP_DECLARE, observer="browser-00", wordless=True)
    for payload, field in (
        ({"to": "browser-00", "speaker": "alice"}, "to"),
        ({"speaker": "browser-00"}, "speaker"),
    ):
        with pytest.raises(UserError) as err:
            store.write(OP_SAY, text="hello there, it is morning", tick=1, **payload)
        assert err.value.field == field and "wordless" in str(err.value)
    assert len(store.entries) == 1 and store.statements.messages == 0


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"text": ""}, "text"),
        ({"speaker": None}, "speaker"),
        ({"tick": -1}, "tick"),
        ({"tick": "soon"}, "tick"),
        ({"credibility": 0}, "credibility"),
        ({"credibility": 1.5}, "credibility"),
        ({"credibility": True}, "credibility"),
        ({"extra_claims": [3]}, "extra_claims[0]"),
        ({"to": ""}, "to"),
    ],
)
def test_bad_say_is_refused_naming_the_field(payload: dict, field: str) -> None:
    store = Store()
    with pytest.raises(UserError) as err:
        store.write(OP_SAY, **{"text": "The well is dry.", "speaker": "alice", "tick": 3, **payload})
    assert err.value.field == field
    assert store.entries == [] and store.statements.messages == 0


def test_the_entry_records_the_reading_and_replay_gives_the_same_projection() -> None:
    store = Store()
    store.write(
        OP_SAY, text="I think the well is dry.", speaker="alice", tick=1, extra_claims=["The well is dry"]
    )
    store.write(OP_SAY, text="I doubt it is.", speaker="alice", tick=2, credibility=0.5)
    entry = store.entries[0]
    assert entry.payload["interpreter"] == "statements-1"
    assert [a["proposition"] for a in entry.payload["assertions"]] == ["the well is dry"]  # merged extra
    again = StatementState()
    replayed = [again.apply(e) for e in store.entries]
    fresh = StatementState()
    originals = [fresh.apply(e) for e in store.entries]
    assert [(a.projection.nodes, a.projection.edges, a.result) for a in replayed] == [
        (a.projection.nodes, a.projection.edges, a.result) for a in originals
    ]
    second = {n.id: n.props for n in replayed[1].projection.nodes}["obs-2-0"]
    assert second["same_speaker_as_previous"] is True
    assert replayed[1].result[0]["credibility"] == 0.5


def test_a_statement_too_large_for_one_entry_is_refused() -> None:
    store = Store()
    text = "Bob said that the server is down. " * 290  # under the text limit, its reading is not
    with pytest.raises(UserError) as err:
        store.write(OP_SAY, text=text, speaker="alice", tick=1)
    assert err.value.field == "text" and "in parts" in str(err.value)
    assert store.entries == []


def test_a_malformed_entry_is_refused_on_apply() -> None:
    bad = seal(GENESIS, 1, OP_SAY, "x", 0, {"speaker": "a", "tick": 1, "assertions": [{"claim": "x"}]})
    with pytest.raises(UserError) as err:
        StatementState().apply(bad)
    assert err.value.field == "assertions"
    with pytest.raises(UserError):
        StatementState().plan("statement.shout", {})
