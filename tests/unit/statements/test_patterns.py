"""The ten speech patterns of SPEC 3.5, each with the fields that matter asserted.

Weights are worked by hand: weight = 1.0 × certainty × (0.5 if reported) × interpretation
confidence, with a clear reading at 0.95 and indirect speech at 0.95 × 0.9 = 0.855.
"""

from __future__ import annotations

import pytest

from graph_service.statements import interpret
from graph_service.statements import lexicon as lx


def one(text: str, speaker: str = "alice"):
    found = interpret(text, speaker)
    assert len(found) == 1, found
    return found[0]


def test_plain_claim() -> None:
    a = one("The server is down.")
    assert (a.actor, a.stance, a.modality, a.factual) == ("alice", "for", "assert", True)
    assert a.proposition == "the server is down"
    assert not (a.reported or a.quoted or a.hypothetical or a.negated or a.sarcasm)
    assert a.certainty == lx.PLAIN and a.interpretation_confidence == lx.CLEAR
    assert a.evidence is not None
    assert (a.evidence.proposition, a.evidence.direction, a.evidence.family) == (
        "the server is down",
        "for",
        "alice",
    )
    assert a.evidence.weight == pytest.approx(0.855)


@pytest.mark.parametrize(
    ("text", "certainty", "weight"),
    [
        ("I think the server is down.", 0.6, 0.57),
        ("The server is probably down.", 0.7, 0.665),
        ("Maybe the server is down.", 0.4, 0.38),
    ],
)
def test_hedged_claim_weighs_less_on_the_same_proposition(text: str, certainty: float, weight: float) -> None:
    a = one(text)
    assert (a.actor, a.stance, a.modality, a.factual) == ("alice", "for", "hedge", True)
    assert a.proposition == "the server is down"
    assert a.certainty == certainty
    assert a.evidence.weight == pytest.approx(weight)
    assert a.notes  # says which word hedged it


def test_reported_speech_is_bobs_and_second_hand() -> None:
    a = one("Bob said that the server is down.")
    assert (a.actor, a.speaker, a.stance, a.modality) == ("bob", "alice", "for", "assert")
    assert a.reported and not a.quoted and a.factual
    assert a.proposition == "the server is down"
    assert a.interpretation_confidence == pytest.approx(0.855)
    assert a.evidence.family == "bob"
    assert a.evidence.weight == pytest.approx(0.9 * 0.5 * 0.855, abs=1e-4)
    assert any("attributed to bob" in n for n in a.notes)


@pytest.mark.parametrize("text", ['Bob said "the server is down."', '"The server is down," Bob said.'])
def test_quoted_speech_is_bobs_exact_words(text: str) -> None:
    a = one(text)
    assert (a.actor, a.stance, a.modality, a.proposition) == ("bob", "for", "assert", "the server is down")
    assert a.reported and a.quoted and a.factual
    assert a.evidence.family == "bob"
    assert a.evidence.weight == pytest.approx(0.9 * 0.5 * 0.95)


@pytest.mark.parametrize(
    ("text", "proposition"),
    [
        ("Suppose the server is down.", "the server is down"),
        ("If the server is down, we lose money.", "if the server is down we lose money"),
        ("What if the server is down?", "the server is down"),
    ],
)
def test_hypothetical_creates_no_evidence(text: str, proposition: str) -> None:
    a = one(text)
    assert a.hypothetical and a.modality == "hypothetical"
    assert (a.stance, a.factual, a.evidence, a.certainty) == ("none", False, None, 0.0)
    assert a.proposition == proposition and a.actor == "alice"


def test_question_creates_no_evidence() -> None:
    a = one("Is the server down?")
    assert (a.modality, a.stance, a.factual, a.evidence) == ("question", "none", False, None)
    assert a.proposition == "is the server down"


@pytest.mark.parametrize(
    ("text", "modality"),
    [
        ("Restart the server.", "imperative"),
        ("Don't restart the server!", "imperative"),
        ("Please restart the server.", "request"),
        ("Could you restart the server?", "request"),
    ],
)
def test_imperative_and_request_create_no_evidence(text: str, modality: str) -> None:
    a = one(text)
    assert (a.modality, a.stance, a.factual, a.evidence) == (modality, "none", False, None)
    assert "restart the server" in a.proposition


def test_expressed_doubt_counts_against() -> None:
    a = one("I doubt the server is down.")
    assert (a.actor, a.stance, a.modality, a.factual) == ("alice", "against", "doubt", True)
    assert a.proposition == "the server is down" and not a.negated
    assert (a.evidence.direction, a.evidence.proposition) == ("against", "the server is down")
    assert a.evidence.weight == pytest.approx(0.6 * 0.95)


@pytest.mark.parametrize("text", ["The server is not down.", "The server isn't down."])
def test_negation_keeps_the_proposition_and_records_polarity(text: str) -> None:
    a = one(text)
    assert a.negated and a.stance == "for" and a.factual
    assert a.proposition != "the server is down"  # the negated claim is its own proposition …
    assert a.core == "the server is down"  # … comparable with the positive one
    assert a.evidence.proposition == a.proposition and a.evidence.direction == "for"


@pytest.mark.parametrize(
    ("text", "proposition"),
    [
        ("Yeah right, the server is down.", "the server is down"),
        ("Oh great, the build is broken again.", "the build is broken again"),
        ("Sure, because the deploy never fails.", "the deploy never fails"),
        ("The deploy went great... not!", "the deploy went great"),
        ("The tests pass /s", "the tests pass"),
    ],
)
def test_possible_sarcasm_is_recorded_with_low_confidence_not_guessed(text: str, proposition: str) -> None:
    a = one(text)
    assert a.sarcasm and a.interpretation_confidence == lx.SARCASM
    assert (a.stance, a.factual, a.evidence) == ("none", False, None)
    assert a.proposition == proposition  # the literal content is kept, its sense is not flipped
    assert any("sarcasm" in n for n in a.notes)


@pytest.mark.parametrize("text", ["Whatever.", "Fine then.", "Data centre outage", "???"])
def test_unknown_constructions_are_kept_and_not_read(text: str) -> None:
    a = one(text)
    assert a.modality == "unknown" and a.interpretation_confidence <= lx.UNKNOWN
    assert (a.stance, a.factual, a.evidence) == ("none", False, None)
    assert a.claim == text and any("not recognised" in n for n in a.notes)


def test_every_clause_of_a_message_becomes_an_assertion() -> None:
    found = interpret("The server is down. Can you check? I think the database is fine!", "alice")
    assert [(a.index, a.modality, a.factual) for a in found] == [
        (0, "assert", True),
        (1, "request", False),
        (2, "hedge", True),
    ]
    assert [a.claim for a in found] == [
        "The server is down.",
        "Can you check?",
        "I think the database is fine!",
    ]
