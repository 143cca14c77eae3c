"""Who stands behind a claim: named, unnamed, relative and nested reporters; relayed verbs."""

from __future__ import annotations

import pytest

from graph_service.statements import actor_id, interpret


def one(text: str, speaker: str = "alice"):
    (a,) = interpret(text, speaker)
    return a


@pytest.mark.parametrize(
    ("who", "relayer", "expected"),
    [
        ("Bob Smith", "alice", "bob-smith"),
        ("my boss", "alice", "alice/boss"),
        ("the doctor", "alice", "doctor"),
        ("I", "alice", "alice"),
        ("Someone", "alice", None),
        ("his manager", "alice", None),
    ],
)
def test_actor_ids(who: str, relayer: str, expected: str | None) -> None:
    assert actor_id(who, relayer) == expected


def test_unnamed_and_hearsay_sources_stay_in_the_speakers_family_but_second_hand() -> None:
    for text in ("Someone said the database is corrupted.", "I heard that the database is corrupted."):
        a = one(text)
        assert a.actor == "alice" and a.reported and a.factual
        assert a.evidence.family == "alice"
        assert a.evidence.weight == pytest.approx(0.9 * 0.5 * 0.855, abs=1e-4)


def test_relayed_verbs() -> None:
    hedge = one("Bob thinks the server is down.")
    assert (hedge.actor, hedge.modality, hedge.certainty, hedge.stance) == ("bob", "hedge", 0.6, "for")
    denial = one("Bob denied that the server is down.")
    assert (denial.actor, denial.stance, denial.modality, denial.factual) == ("bob", "against", "deny", True)
    doubt = one("Bob doubts that the server is down.")
    assert (doubt.stance, doubt.evidence.direction) == ("against", "against")
    asked = one("Bob asked whether the server is down.")
    assert (asked.actor, asked.modality, asked.factual, asked.proposition) == (
        "bob",
        "question",
        False,
        "the server is down",
    )
    told = one("Bob told me to restart the server.")
    assert (told.actor, told.modality, told.factual, told.proposition) == (
        "bob",
        "request",
        False,
        "restart the server",
    )
    quoted_question = one('Bob asked "is the server down?"')
    assert (quoted_question.modality, quoted_question.quoted, quoted_question.factual) == (
        "question",
        True,
        False,
    )


def test_reports_in_reports_follow_to_the_innermost_person() -> None:
    a = one("Carol said that Bob said the server is down.")
    assert (a.actor, a.reported, a.factual) == ("bob", True, True)
    deep = one("Dave said that Erin said that Frank said the server is down.")
    assert (deep.modality, deep.factual) == ("unknown", False)


def test_the_speaker_quoting_themselves_is_first_hand() -> None:
    a = one('"The server is down," Alice said.')
    assert (a.actor, a.reported, a.quoted) == ("alice", False, True)
    assert a.evidence.weight == pytest.approx(0.855)


def test_sarcasm_inside_a_quote_is_the_quoted_persons() -> None:
    a = one('Bob said "oh great, the build is broken again."')
    assert (a.actor, a.sarcasm, a.factual) == ("bob", True, False)


def test_hedged_and_negated_reported_claim() -> None:
    a = one("According to Carol, the backups probably didn't run.")
    assert (a.actor, a.negated, a.certainty, a.core) == ("carol", True, 0.7, "the backups did run")
