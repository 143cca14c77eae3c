"""Question text: deterministic, and always about the target's own subject."""

from __future__ import annotations

import pytest

from graph_service.errors import UserError
from graph_service.questions import DISPUTE, STALE_ITEM, UNKNOWN, Candidate, formulate, score


def test_an_unknown_factor_is_asked_about_by_name_with_its_decision_as_context() -> None:
    factor = Candidate(
        id="u1",
        kind=UNKNOWN,
        opened_at=4,
        subject="client retention",
        parent="relocation decision",
        detail="  would our largest   client stay after the move. ",
    )
    assert formulate(factor) == (
        "About client retention (in relocation decision): would our largest client stay after the move?"
    )


def test_an_unknown_declared_without_a_factor_name_is_asked_as_declared() -> None:
    bare = Candidate(
        id="u2",
        kind=UNKNOWN,
        opened_at=0,
        subject="Will the landlord renew?",
        parent="office",
        detail="Will the landlord renew?",
    )
    assert formulate(bare) == "Will the landlord renew (in office)?"


def test_a_dispute_lists_its_values_in_a_fixed_order() -> None:
    one = Candidate(
        id="d", kind=DISPUTE, opened_at=0, subject="door colour", values=("red", "blue", "green", "red")
    )
    other = Candidate(
        id="d", kind=DISPUTE, opened_at=0, subject="door colour", values=("green", "red", "blue")
    )
    assert formulate(one) == formulate(other) == "Which is right for door colour: 'blue', 'green' or 'red'?"
    two = Candidate(id="d", kind=DISPUTE, opened_at=0, subject="door colour", values=("red", "blue"))
    assert formulate(two) == "Which is right for door colour: 'blue' or 'red'?"
    none = Candidate(id="d", kind=DISPUTE, opened_at=0, subject="door colour")
    assert formulate(none) == "What is the right value for door colour? The sources disagree."


def test_a_stale_item_asks_whether_it_still_holds_and_says_why() -> None:
    rent = Candidate(
        id="i",
        kind=STALE_ITEM,
        opened_at=0,
        subject="office rent",
        values=("4200",),
        detail="the lease was renegotiated",
    )
    assert formulate(rent) == (
        "Is it still true that office rent is '4200'?"
        " It was flagged for re-confirmation: the lease was renegotiated."
    )
    plain = Candidate(id="i", kind=STALE_ITEM, opened_at=0, subject="the deploy runbook")
    assert formulate(plain) == "Does the deploy runbook still hold?"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"id": ""}, "id"),
        ({"kind": "decision"}, "kind"),
        ({"opened_at": -1}, "opened_at"),
        ({"subject": " "}, "subject"),
        ({"parent": ""}, "parent"),
        ({"values": ["a"]}, "values"),
        ({"dependents": -2}, "dependents"),
        ({"snapshots": True}, "snapshots"),
        ({"decisions": 1.5}, "decisions"),
        ({"resolved": "no"}, "resolved"),
    ],
)
def test_a_malformed_candidate_is_refused_naming_the_field(changes: dict[str, object], field: str) -> None:
    fields: dict[str, object] = {"id": "x", "kind": UNKNOWN, "opened_at": 0, "subject": "s"}
    fields.update(changes)
    with pytest.raises(UserError) as err:
        Candidate(**fields)  # type: ignore[arg-type]
    assert err.value.field == field


def test_score_weights_decisions_over_snapshots_over_dependents() -> None:
    c = Candidate(id="x", kind=UNKNOWN, opened_at=7, subject="s", dependents=1, snapshots=1, decisions=1)
    s = score(c)
    assert (s.materiality, s.rank_key) == (6, (-6, 7, "x"))
    assert c.label == "Unknown"
