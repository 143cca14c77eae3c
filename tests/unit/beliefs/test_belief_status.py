"""Status thresholds, read from a breakdown."""

from __future__ import annotations

import pytest

from graph_service.beliefs import Breakdown, derive_status


def bd(
    confidence: float, *, support: float = 0.5, against: float = 0.0, diversity: float = 0.6, kind="claim"
):
    return Breakdown(
        kind,
        0.5,
        (),
        support,
        against,
        1 if support else 0,
        1 if against else 0,
        diversity,
        0.0,
        confidence,
        "",
        (),
    )


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [
        (0.02, "rejected"),
        (0.1499, "rejected"),
        (0.15, "tentative"),
        (0.6999, "tentative"),
        (0.7, "likely"),
        (0.8499, "likely"),
        (0.85, "accepted"),
        (0.98, "accepted"),
    ],
)
def test_thresholds(confidence, expected):
    assert derive_status(bd(confidence)) == expected


def test_contested_needs_against_at_least_half_the_discounted_support_and_mid_range():
    # discounted support = 1.0 × 0.6 = 0.6; half of it = 0.3
    assert derive_status(bd(0.5, support=1.0, against=0.3)) == "contested"
    assert derive_status(bd(0.5, support=1.0, against=0.29)) == "tentative"
    assert derive_status(bd(0.25, support=1.0, against=0.3)) == "contested"
    assert derive_status(bd(0.75, support=1.0, against=0.3)) == "contested"
    assert derive_status(bd(0.76, support=1.0, against=0.3)) == "likely"
    assert derive_status(bd(0.24, support=1.0, against=0.9)) == "tentative"


def test_no_evidence_is_not_contested():
    assert derive_status(bd(0.5, support=0.0, against=0.0)) == "tentative"


def test_hypotheses():
    assert derive_status(bd(0.6, support=0.0, kind="hypothesis")) == "hypothesis"
    assert derive_status(bd(0.49, support=0.3, kind="hypothesis")) == "hypothesis"
    assert derive_status(bd(0.55, support=0.3, kind="hypothesis")) == "tentative"
    assert derive_status(bd(0.1, support=0.0, kind="hypothesis")) == "rejected"


def test_pinned_and_superseded_win():
    assert derive_status(bd(0.95), pinned="rejected") == "rejected"
    assert derive_status(bd(0.1), pinned="accepted") == "accepted"
    assert derive_status(bd(0.95), superseded=True) == "superseded"
