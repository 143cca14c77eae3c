"""Propositions as token sets with a polarity, and an index that finds near matches cheaply."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "cannot"}
)
# Contractions whose stem is not simply the word without "n't".
_IRREGULAR = {"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is", "cannot": "can"}
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@dataclass(frozen=True, slots=True)
class Signature:
    """The content tokens of a proposition (negations removed) and whether it is negated."""

    tokens: frozenset[str]
    negated: bool


def signature(text: str) -> Signature:
    """Lower-cased word tokens; each negation word or "n't" flips the polarity and is dropped."""
    flips = 0
    tokens: set[str] = set()
    for word in _WORD.findall(text.lower().replace("\u2019", "'")):
        if word in _IRREGULAR:
            tokens.add(_IRREGULAR[word])
            flips += 1
        elif word.endswith("n't"):
            tokens.add(word[:-3])
            flips += 1
        elif word in NEGATIONS:
            flips += 1
        else:
            tokens.add(word)
    return Signature(frozenset(tokens), flips % 2 == 1)


def normalized(text: str) -> str:
    """Whitespace-collapsed, lower-cased text: two propositions equal under this are the same."""
    return " ".join(text.lower().split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> Fraction:
    """|a ∩ b| / |a ∪ b| as an exact fraction (0 when both are empty)."""
    union = len(a | b)
    return Fraction(len(a & b), union) if union else Fraction(0)


def probe_size(tokens: frozenset[str], threshold: Fraction) -> int:
    """How many of these tokens a near-match read must look up (any of them: see TokenIndex)."""
    return len(tokens) - math.ceil(threshold * len(tokens)) + 1



class TokenIndex:
    """Token → keys, answering "which keys may have Jaccard ≥ t with these tokens" without a scan.

    If J(A, B) ≥ t then B holds at least ⌈t·|A|⌉ of A's tokens, so B holds at least one of any
    |A| − ⌈t·|A|⌉ + 1 of them: reading the postings of that many of A's rarest tokens is exact.
    """

    def __init__(self) -> None:
        self._postings: dict[str, set[str]] = {}
        self._tokens: dict[str, frozenset[str]] = {}

    def add(self, key: str, tokens: frozenset[str]) -> None:
        self.discard(key)
        self._tokens[key] = tokens
        for token in tokens:
            self._postings.setdefault(token, set()).add(key)

    def discard(self, key: str) -> None:
        for token in self._tokens.pop(key, frozenset()):
            keys = self._postings.get(token)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._postings[token]

    def tokens(self, key: str) -> frozenset[str]:
        return self._tokens[key]

    def similar(self, tokens: frozenset[str], threshold: Fraction) -> list[str]:
        """Keys whose tokens have Jaccard ≥ threshold with `tokens`, sorted."""
        if not tokens:
            return []
        probe = sorted(tokens, key=lambda t: (len(self._postings.get(t, ())), t))[: probe_size(tokens, threshold)]
        candidates: set[str] = set()
        for token in probe:
            candidates |= self._postings.get(token, set())
        return sorted(k for k in candidates if jaccard(tokens, self._tokens[k]) >= threshold)

    def keys(self) -> Iterable[str]:
        return self._tokens.keys()
