"""Choosing the next question: honoured preferences, reasoned fallbacks, order independence."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.errors import UserError
from graph_service.questions import (
    DISPUTE,
    FALLBACK,
    MISSING,
    NOT_QUESTION_BEARING,
    PREFERRED,
    RESOLVED,
    STALE_ITEM,
    UNKNOWN,
    Candidate,
    select_next_question,
)

RELOCATION = Candidate(
    id="n_relocation_decision",
    kind=UNKNOWN,
    opened_at=3,
    subject="relocation",
    parent="office move",
    detail="Which option leaves us better off overall",
    dependents=4,
    decisions=2,
)
RETENTION = Candidate(
    id="n_client_retention",
    kind=UNKNOWN,
    opened_at=9,
    subject="client retention",
    parent="relocation",
    detail="Would our largest client stay if we moved",
    dependents=1,
)
RENT = Candidate(
    id="item-rent",
    kind=STALE_ITEM,
    opened_at=1,
    subject="office rent",
    values=("4200",),
    detail="the lease was renegotiated",
    snapshots=1,
)
DOOR = Candidate(id="dispute-door", kind=DISPUTE, opened_at=2, subject="door colour", values=("red", "blue"))


def test_a_valid_preferred_target_wins_over_a_more_material_one() -> None:
    chosen = select_next_question([RELOCATION, RETENTION, RENT], preferred="n_client_retention")
    assert chosen.target == RETENTION
    assert chosen.path == PREFERRED and chosen.rejected is None
    assert chosen.score is not None and chosen.score.materiality == 1
    # The ranking is still shown, and it would have put the parent decision first.
    assert [s.id for s in chosen.ranking] == ["n_relocation_decision", "item-rent", "n_client_retention"]


def test_seed_case_a_newly_added_factor_is_asked_about_not_its_parent_decision() -> None:
    chosen = select_next_question([RELOCATION, RENT], preferred="n_client_retention", added=[RETENTION])
    assert chosen.target is not None and chosen.target.id == "n_client_retention"
    assert chosen.path == PREFERRED
    assert chosen.text is not None
    assert "client retention" in chosen.text
    assert "Would our largest client stay if we moved?" in chosen.text
    # The parent appears only as context, never as the topic.
    assert not chosen.text.startswith("About relocation")
    assert "better off overall" not in chosen.text


def test_a_resolved_preference_falls_back_with_the_reason() -> None:
    answered = Candidate(
        id="u-done", kind=UNKNOWN, opened_at=0, subject="budget", dependents=50, resolved=True
    )
    chosen = select_next_question([answered, RELOCATION, RETENTION], preferred="u-done")
    assert chosen.path == FALLBACK and chosen.rejected == RESOLVED and chosen.preferred == "u-done"
    assert chosen.target == RELOCATION
    assert "u-done" not in [s.id for s in chosen.ranking]


def test_a_missing_preference_falls_back_with_the_reason() -> None:
    chosen = select_next_question([RELOCATION, RETENTION], preferred="n_nowhere")
    assert (chosen.path, chosen.rejected, chosen.target) == (FALLBACK, MISSING, RELOCATION)


def test_a_preference_for_a_node_that_bears_no_question_falls_back_with_the_reason() -> None:
    others = {"snapshot-relocation": "decision", "item-lease": "item"}
    for plain in others:
        chosen = select_next_question([RELOCATION, RETENTION], preferred=plain, others=others)
        assert (chosen.path, chosen.rejected, chosen.target) == (FALLBACK, NOT_QUESTION_BEARING, RELOCATION)


def test_a_preference_added_but_resolved_in_the_same_request_is_rejected_as_resolved() -> None:
    gone = Candidate(id="u-new", kind=UNKNOWN, opened_at=12, subject="parking", resolved=True)
    chosen = select_next_question([RETENTION], preferred="u-new", added=[gone])
    assert (chosen.path, chosen.rejected, chosen.target) == (FALLBACK, RESOLVED, RETENTION)


def test_fallback_ranks_by_materiality_then_age_then_id() -> None:
    # decisions weigh 3, snapshots 2, dependents 1: all three score 6.
    heavy_old = Candidate(id="b", kind=DISPUTE, opened_at=1, subject="k1", values=("x", "y"), decisions=2)
    heavy_old_too = Candidate(id="a", kind=STALE_ITEM, opened_at=1, subject="k2", snapshots=3)
    heavy_young = Candidate(id="0", kind=UNKNOWN, opened_at=5, subject="k3", dependents=6)
    light = Candidate(id="00", kind=UNKNOWN, opened_at=0, subject="k4", dependents=5)
    chosen = select_next_question([light, heavy_young, heavy_old, heavy_old_too])
    assert [s.id for s in chosen.ranking] == ["a", "b", "0", "00"]
    assert [s.materiality for s in chosen.ranking] == [6, 6, 6, 5]
    assert chosen.target == heavy_old_too and chosen.path == FALLBACK and chosen.rejected is None
    assert chosen.score is not None and chosen.score.as_dict() == {
        "id": "a",
        "kind": STALE_ITEM,
        "dependents": 0,
        "snapshots": 3,
        "decisions": 0,
        "materiality": 6,
        "opened_at": 1,
    }


def test_nothing_open_gives_no_target_and_no_text() -> None:
    done = Candidate(id="u", kind=UNKNOWN, opened_at=0, subject="s", resolved=True)
    chosen = select_next_question([done], preferred="u")
    assert (chosen.target, chosen.text, chosen.score, chosen.ranking) == (None, None, None, ())
    assert chosen.rejected == RESOLVED
    assert select_next_question([]).target is None


def test_the_same_record_in_candidates_and_added_counts_once_but_two_different_ones_are_refused() -> None:
    chosen = select_next_question([RETENTION, RELOCATION], added=[RETENTION])
    assert [s.id for s in chosen.ranking].count("n_client_retention") == 1
    clash = Candidate(id="n_client_retention", kind=UNKNOWN, opened_at=9, subject="churn")
    with pytest.raises(UserError) as err:
        select_next_question([RETENTION], added=[clash])
    assert err.value.field == "added"


@pytest.mark.parametrize("bad", ["", "   ", 7])
def test_a_malformed_preference_is_an_error_naming_the_field(bad: object) -> None:
    with pytest.raises(UserError) as err:
        select_next_question([RETENTION], preferred=bad)  # type: ignore[arg-type]
    assert err.value.field == "preferred"


def test_a_non_candidate_in_the_pool_is_an_error_naming_the_field() -> None:
    with pytest.raises(UserError) as err:
        select_next_question([RETENTION, {"id": "x"}])  # type: ignore[list-item]
    assert err.value.field == "candidates"


def test_as_dict_is_plain_data() -> None:
    data = select_next_question([RELOCATION, RETENTION], preferred="n_client_retention").as_dict()
    assert data["target"] == "n_client_retention" and data["target_kind"] == UNKNOWN
    assert data["path"] == PREFERRED and data["rejected"] is None
    assert [row["id"] for row in data["ranking"]] == ["n_relocation_decision", "n_client_retention"]  # type: ignore[index,union-attr]


_candidates = st.lists(
    st.builds(
        Candidate,
        id=st.text(alphabet="abcxyz01", min_size=1, max_size=3),
        kind=st.sampled_from([DISPUTE, STALE_ITEM, UNKNOWN]),
        opened_at=st.integers(0, 5),
        subject=st.sampled_from(["rent", "door colour", "client retention"]),
        values=st.lists(st.sampled_from(["x", "y", "z"]), max_size=3).map(tuple),
        dependents=st.integers(0, 3),
        snapshots=st.integers(0, 2),
        decisions=st.integers(0, 2),
        resolved=st.booleans(),
    ),
    max_size=12,
    unique_by=lambda c: c.id,
)


@settings(max_examples=60, deadline=None)
@given(
    pool=_candidates,
    split=st.integers(0, 12),
    seed=st.integers(0, 2**16),
    preferred=st.one_of(st.none(), st.text(alphabet="abcxyz01", min_size=1, max_size=3)),
)
def test_selection_does_not_depend_on_input_order(
    pool: list[Candidate], split: int, seed: int, preferred: str | None
) -> None:
    expected = select_next_question(pool, preferred=preferred)
    shuffled = list(pool)
    random.Random(seed).shuffle(shuffled)
    again = select_next_question(shuffled[split:], preferred=preferred, added=reversed(shuffled[:split]))
    assert again == expected
    open_ids = {c.id for c in pool if not c.resolved}
    assert {s.id for s in expected.ranking} == open_ids
    if expected.target is None:
        assert not open_ids
        return
    assert not expected.target.resolved
    if expected.path == PREFERRED:
        assert expected.target.id == preferred and expected.rejected is None
        return

    # Fallback: no open candidate is more material, or as material and older, or tied and lower id.
    def key(c: Candidate) -> tuple[int, int, str]:
        return (-(3 * c.decisions + 2 * c.snapshots + c.dependents), c.opened_at, c.id)

    assert key(expected.target) == min(key(c) for c in pool if not c.resolved)
    if preferred is None:
        assert expected.rejected is None
    else:
        assert expected.rejected in (MISSING, RESOLVED)
