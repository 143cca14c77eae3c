"""Same inputs, same bytes: repeated and shuffled calls, and extra claims in any order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.journal.chain import canonical_json
from graph_service.statements import interpret, is_conversational

TEXTS = [
    "The server is down.",
    "I think the server is down. Bob said that it isn't!",
    'Bob said "the build is broken." Could you check?',
    "Suppose the cache is cold. What if it is?",
    "Yeah right, the deploy worked. I doubt it.",
    "Whatever. Restart the server.",
    "My boss told me that the release slipped; maybe it didn't.",
]


def dump(text: str, speaker: str = "alice", extra=()) -> str:
    return canonical_json([a.as_dict() for a in interpret(text, speaker, extra)])


def test_repeated_and_shuffled_calls_give_identical_bytes() -> None:
    first = {t: dump(t) for t in TEXTS}
    rng = random.Random(7)
    for _ in range(3):
        order = TEXTS * 2
        rng.shuffle(order)
        for text in order:
            assert dump(text) == first[text]


def test_extra_claims_in_any_order_give_identical_bytes() -> None:
    extras = [
        "The database is slow.",
        "the network is flaky",
        {"text": "The disk is full.", "stance": "against"},
    ]
    expected = dump("The server is down.", extra=extras)
    rng = random.Random(3)
    for _ in range(5):
        shuffled = [*extras, extras[0]]  # a repeat is the same claim once
        rng.shuffle(shuffled)
        assert dump("The server is down.", extra=shuffled) == expected


def test_extra_claims_join_the_list_but_the_interpreter_sets_stance_and_confidence() -> None:
    found = interpret(
        "The server is down and the disk is full.",
        "alice",
        [
            {"text": "The disk is full.", "stance": "against", "confidence": 0.99},
            "I doubt the network is flaky.",
            "The server is down and the disk is full",  # already the message's claim
        ],
    )
    assert [a.source for a in found] == ["message", "extra", "extra"]
    assert [a.index for a in found] == [0, 1, 2]
    network, disk = found[1], found[2]  # extra claims come sorted
    assert disk.proposition == "the disk is full"
    assert (disk.stance, disk.interpretation_confidence, disk.factual) == ("for", 0.95, True)
    assert any("ignored" in n for n in disk.notes)
    assert network.stance == "against"  # the interpreter's own reading of the words
    assert network.interpretation_confidence == pytest.approx(0.95 * 0.75)  # not in the message
    assert network.evidence.weight == pytest.approx(0.6 * 0.95 * 0.75, abs=1e-4)


def test_is_conversational() -> None:
    assert not is_conversational(interpret("The deploy finished. Latency rose.", "ops"))
    assert is_conversational(interpret("Did the deploy finish?", "ops"))
    assert is_conversational(interpret("Suppose the deploy finished.", "ops"))
    assert is_conversational(interpret("The deploy finished. Please check latency.", "ops"))
    assert is_conversational(interpret("Oh great, the deploy finished.", "ops"))


@pytest.mark.parametrize(
    ("text", "speaker", "extra", "field"),
    [
        ("", "alice", (), "text"),
        ("   ", "alice", (), "text"),
        (None, "alice", (), "text"),
        ("x" * 10_001, "alice", (), "text"),
        ("The server is down.", "", (), "speaker"),
        ("The server is down.", "alice", "not a list", "extra_claims"),
        ("The server is down.", "alice", [""], "extra_claims[0]"),
        ("The server is down.", "alice", [{"stance": "for"}], "extra_claims[0]"),
    ],
)
def test_bad_input_names_the_field(text, speaker, extra, field) -> None:
    with pytest.raises(UserError) as err:
        interpret(text, speaker, extra)
    assert err.value.field == field


WORDS = st.sampled_from(
    [
        "the",
        "server",
        "is",
        "not",
        "down",
        "Bob",
        "said",
        "I",
        "think",
        "maybe",
        "if",
        "?",
        ".",
        "!",
        '"',
        ",",
        "please",
        "yeah",
        "right",
        "doubt",
        "restart",
        "that",
        "isn't",
        "never",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=14))
def test_any_text_is_read_deterministically_and_nothing_is_dropped(parts: list[str]) -> None:
    text = " ".join(parts)
    if not text.strip():
        return
    found = interpret(text, "alice")
    assert found and dump(text) == dump(text)
    for a in found:
        assert 0 < a.interpretation_confidence <= 1
        assert a.factual == (a.evidence is not None)
        if a.evidence is not None:
            assert 0 < a.evidence.weight <= 1 and a.evidence.direction in ("for", "against")
        else:
            assert a.stance == "none" or not a.factual
