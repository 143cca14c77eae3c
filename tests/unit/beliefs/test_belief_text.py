"""The token index finds exactly the propositions a full scan would."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.beliefs.text import TokenIndex, jaccard

words = st.frozensets(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]), max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    stored=st.lists(words, max_size=12),
    probe=words,
    threshold=st.sampled_from([Fraction(3, 5), Fraction(7, 10), Fraction(1, 2)]),
)
def test_similar_equals_a_full_scan(stored, probe, threshold):
    index = TokenIndex()
    for i, tokens in enumerate(stored):
        index.add(f"k{i:02}", tokens)
    index.discard("k00")
    expected = sorted(
        f"k{i:02}" for i, t in enumerate(stored) if i != 0 and probe and jaccard(probe, t) >= threshold
    )
    assert index.similar(probe, threshold) == expected
