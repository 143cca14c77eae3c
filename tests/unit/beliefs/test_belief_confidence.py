"""The confidence arithmetic against values worked out by hand, and the anti-inflation guarantee."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.beliefs import EvidenceValue, assess
from graph_service.beliefs.vocabulary import DERIVED_DERIVATIONS, PRIMARY_DERIVATIONS, PRIORS


def ev(
    family: str,
    weight: float,
    *,
    direction: str = "for",
    credibility: float = 1.0,
    derivation: str = "direct",
):
    return EvidenceValue(family, direction, weight, credibility, derivation)


# Each case: (name, kind, rows, for, against, supporting families, diversity, confidence).
# σ(x) = 1 / (1 + e^−x); logit(0.5) = 0. Numbers were worked out on paper / a pocket calculator.
CASES = [
    # No evidence: the prior stands, for every epistemic kind.
    ("prior claim", "claim", [], 0.0, 0.0, 0, 0.6, 0.5),
    ("prior hypothesis", "hypothesis", [], 0.0, 0.0, 0, 0.6, 0.25),
    ("prior assumption", "assumption", [], 0.0, 0.0, 0, 0.6, 0.4),
    ("prior opinion", "opinion", [], 0.0, 0.0, 0, 0.6, 0.4),
    ("prior observation", "observation", [], 0.0, 0.0, 0, 0.6, 0.6),
    ("prior memory", "memory", [], 0.0, 0.0, 0, 0.6, 0.6),
    ("prior fact", "fact", [], 0.0, 0.0, 0, 0.6, 0.8),
    # One family, one row: value 0.8 × 0.5 = 0.4; x = 1.5 × 0.4 × 0.6 = 0.36; σ(0.36) = 0.58904043
    ("one row", "claim", [ev("A", 0.8, credibility=0.5)], 0.4, 0.0, 1, 0.6, 0.5890404340586651),
    # Four rows of 0.8 from A: 0.8 + 0.25 × 2.4 = 1.4 > cap 1.5 × 0.8 = 1.2 → 1.2;
    # x = 1.5 × 1.2 × 0.6 = 1.08; σ(1.08) = 0.74649398
    ("repetition capped", "claim", [ev("A", 0.8)] * 4, 1.2, 0.0, 1, 0.6, 0.7464939833376621),
    # Rows 0.8 and 0.4 from A: 0.8 + 0.25 × 0.4 = 0.9 (< cap 1.2); x = 1.5 × 0.9 × 0.6 = 0.81; σ = 0.69210950
    ("repetition below cap", "claim", [ev("A", 0.8), ev("A", 0.4)], 0.9, 0.0, 1, 0.6, 0.6921095043017882),
    # Derived-only family: inference 0.6 and reflection 0.9 → strongest derived alone = 0.9; same x = 0.81
    (
        "derived only",
        "claim",
        [ev("A", 0.6, derivation="inference"), ev("A", 0.9, derivation="reflection")],
        0.9,
        0.0,
        1,
        0.6,
        0.6921095043017882,
    ),
    # Primary 0.5 beside derived 0.9 in one family: derived ignored → 0.5; x = 1.5 × 0.5 × 0.6 = 0.45;
    # σ(0.45) = 0.61063923
    (
        "derived beside primary",
        "claim",
        [ev("A", 0.5), ev("A", 0.9, derivation="consolidation")],
        0.5,
        0.0,
        1,
        0.6,
        0.610639233949222,
    ),
    # Three independent families of 0.5: for = 1.5, diversity = 0.6 + 0.4 × min(1, 2/2) = 1.0;
    # x = 1.5 × 1.5 = 2.25; σ(2.25) = 0.90465054
    (
        "three families",
        "claim",
        [ev("A", 0.5), ev("B", 0.5), ev("C", 0.5)],
        1.5,
        0.0,
        3,
        1.0,
        0.9046505351008906,
    ),
    # The same three rows from one source: 0.5 + 0.25 × 1.0 = 0.75 (= cap 0.75); x = 1.5 × 0.75 × 0.6 = 0.675;
    # σ(0.675) = 0.66262184 — well below the three independent families
    ("one repeated source", "claim", [ev("A", 0.5)] * 3, 0.75, 0.0, 1, 0.6, 0.6626218371700825),
    # Two families of 0.5: for = 1.0, diversity = 0.6 + 0.4 × 0.5 = 0.8; x = 1.5 × 0.8 = 1.2;
    # σ(1.2) = 0.76852478
    ("two families", "claim", [ev("A", 0.5), ev("B", 0.5)], 1.0, 0.0, 2, 0.8, 0.7685247834990178),
    # Opposing: for A 0.6, against B 0.4; x = 1.5 × (0.6 × 0.6 − 0.4) = −0.06; σ(−0.06) = 0.48500450
    (
        "opposing",
        "claim",
        [ev("A", 0.6), ev("B", 0.4, direction="against")],
        0.6,
        0.4,
        1,
        0.6,
        0.4850044983805899,
    ),
    # Clamp high: fact, three families of 1.0: x = ln(4) + 1.5 × 3 × 1.0 = 1.3863 + 4.5 = 5.8863;
    # σ = 0.99723 → 0.98
    ("clamp high", "fact", [ev("A", 1.0), ev("B", 1.0), ev("C", 1.0)], 3.0, 0.0, 3, 1.0, 0.98),
    # Clamp low: hypothesis, three opposing families of 1.0: x = ln(1/3) − 4.5 = −5.5986; σ = 0.00369 → 0.02
    (
        "clamp low",
        "hypothesis",
        [ev(f, 1.0, direction="against") for f in "ABC"],
        0.0,
        3.0,
        0,
        0.6,
        0.02,
    ),
    # Observation prior 0.6 with one row 0.6: x = ln(1.5) + 1.5 × 0.6 × 0.6 = 0.405465 + 0.54 = 0.945465;
    # σ = 0.72020226
    ("observation prior", "observation", [ev("A", 0.6)], 0.6, 0.0, 1, 0.6, 0.7202022607822367),
    # A family adding nothing (weight 0) is no independent source:
    # for 0.5, one family, diversity 0.6 → 0.61063923
    ("zero-weight family", "claim", [ev("A", 0.5), ev("B", 0.0)], 0.5, 0.0, 1, 0.6, 0.610639233949222),
    # Association: hypothesis, two observations of 0.15 each: for 0.3, diversity 0.8;
    # x = ln(1/3) + 1.5 × 0.24 = −1.098612 + 0.36 = −0.738612; σ = 0.32330767
    ("association", "hypothesis", [ev("o1", 0.15), ev("o2", 0.15)], 0.3, 0.0, 2, 0.8, 0.32330767252549975),
    # Only opposing evidence: claim, against 1.0: x = −1.5; σ(−1.5) = 0.18242552
    ("only against", "claim", [ev("A", 1.0, direction="against")], 0.0, 1.0, 0, 0.6, 0.18242552380635635),
]


@pytest.mark.parametrize(
    ("name", "kind", "rows", "support", "against", "families", "diversity", "confidence"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_hand_computed_confidence(name, kind, rows, support, against, families, diversity, confidence):
    b = assess(kind, rows)
    assert b.prior == PRIORS[kind]
    assert b.support == pytest.approx(support, abs=1e-12)
    assert b.against == pytest.approx(against, abs=1e-12)
    assert b.supporting_families == families
    assert b.diversity == pytest.approx(diversity, abs=1e-12)
    assert b.confidence == pytest.approx(confidence, abs=1e-12)


def test_breakdown_is_plain_json_and_explains_itself():
    b = assess(
        "claim",
        [ev("A", 0.8)] * 4 + [ev("A", 0.9, derivation="inference"), ev("B", 0.2, direction="against")],
    )
    plain = json.loads(json.dumps(b.to_dict()))
    assert plain["for"] == pytest.approx(1.2) and plain["against"] == pytest.approx(0.2)
    by_family = {(f["family"], f["direction"]): f for f in plain["families"]}
    assert by_family[("A", "for")] == {
        "family": "A",
        "direction": "for",
        "contribution": pytest.approx(1.2),
        "strongest": 0.8,
        "primary_rows": 4,
        "derived_rows": 1,
        "basis": "primary",
        "capped": True,
    }
    assert plain["log_odds"] == pytest.approx(1.5 * (1.2 * 0.6 - 0.2))
    assert "sigmoid(logit(0.5)" in plain["formula"]
    assert any("capped" in n for n in plain["notes"]) and any("derived" in n for n in plain["notes"])


def test_legacy_rows_are_their_source_family():
    legacy = EvidenceValue("crm-import", "for", 0.6, 1.0, "direct", "legacy_unknown")
    b = assess("claim", [legacy, legacy])
    # One family: 0.6 + 0.25 × 0.6 = 0.75 (cap 0.9)
    assert b.support == pytest.approx(0.75)
    assert any("legacy_unknown" in n for n in b.notes)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="epistemic kind"):
        assess("rumour", [])


values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
kinds = st.sampled_from(sorted(PRIORS))


@settings(max_examples=60, deadline=None)
@given(
    kind=kinds,
    primary=st.lists(st.tuples(values, values, st.sampled_from(PRIMARY_DERIVATIONS)), min_size=1, max_size=6),
    extra=st.lists(st.tuples(values, values, st.sampled_from(PRIMARY_DERIVATIONS)), max_size=30),
    derived=st.lists(st.tuples(values, values, st.sampled_from(DERIVED_DERIVATIONS)), max_size=30),
    others=st.lists(st.tuples(st.sampled_from("XYZ"), values), max_size=4),
)
def test_one_family_never_inflates(kind, primary, extra, derived, others):
    """More rows from one family, or any re-expressions of it, never lift it past 1.5 × its strongest
    primary row; derived rows beside primary rows change nothing at all."""

    def rows(spec):
        return [EvidenceValue("F", "for", w, c, d) for w, c, d in spec]

    background = [ev(f, w) for f, w in others]
    base = assess(kind, rows(primary) + background)
    rederived = assess(kind, rows(primary) + rows(derived) + background)
    assert rederived.confidence == base.confidence

    strongest = max(w * c for w, c, _ in primary + extra)
    flooded = assess(kind, rows(primary) + rows(extra) + rows(derived) + background)
    family = next(f for f in flooded.families if f.family == "F")
    assert family.contribution <= 1.5 * strongest + 1e-12
    # Ceiling: the family counted at 1.5 × its strongest row, the rest unchanged.
    ceiling = assess(kind, [EvidenceValue("F", "for", 1.5 * strongest, 1.0, "direct"), *background])
    assert flooded.confidence <= ceiling.confidence + 1e-12


@settings(max_examples=40, deadline=None)
@given(
    kind=kinds,
    chain=st.lists(st.tuples(values, st.sampled_from(DERIVED_DERIVATIONS)), min_size=1, max_size=20),
)
def test_derived_only_family_counts_its_strongest_row_once(kind, chain):
    got = assess(kind, [EvidenceValue("F", "for", w, 1.0, d) for w, d in chain])
    assert got.support == max(w for w, _ in chain)
    one = assess(kind, [EvidenceValue("F", "for", max(w for w, _ in chain), 1.0, "inference")])
    assert got.confidence == one.confidence


@settings(max_examples=40, deadline=None)
@given(kind=kinds, rows=st.lists(st.tuples(st.sampled_from("ABCD"), values, st.booleans()), max_size=12))
def test_confidence_stays_in_bounds(kind, rows):
    b = assess(kind, [ev(f, w, direction="for" if up else "against") for f, w, up in rows])
    assert 0.02 <= b.confidence <= 0.98
    raw = 1 / (1 + math.exp(-b.log_odds)) if b.log_odds > -700 else 0.0
    assert b.confidence == pytest.approx(min(0.98, max(0.02, raw)), abs=1e-12)
