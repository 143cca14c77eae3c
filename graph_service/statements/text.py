"""Text handling for the interpreter: quotes, clause splitting, tokens and normalised propositions."""

from __future__ import annotations

import re
from typing import Final

from graph_service.statements.lexicon import IRREGULAR_NEGATIONS, NEGATION_DROPPED_FROM_CORE

_QUOTE_MAP: Final = str.maketrans(
    {"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u00ab": '"', "\u00bb": '"'}
)
_ABBREVIATIONS: Final = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "st", "e.g", "i.e", "etc", "vs", "jr", "sr"}
)
_TOKEN: Final = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|/s")
_SPACE: Final = re.compile(r"\s+")


def clean(text: str) -> str:
    """Straight quotes and apostrophes, single spaces, no surrounding blanks."""
    return _SPACE.sub(" ", text.translate(_QUOTE_MAP)).strip()


def split_clauses(text: str) -> tuple[str, ...]:
    """Sentences of a message: split after . ! ? ; outside double quotes, keeping the end mark.

    A full stop after a common abbreviation ("Dr.") or inside a number ("3.5") does not split.
    Nothing is lost: every non-blank stretch of the text lands in some clause.
    """
    text = clean(text)
    clauses: list[str] = []
    start, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
            # A quotation that ends a sentence ('… said "It is down." Then …') closes the clause.
            ends = text[i - 1 : i] in (".", "!", "?")
            if not quoted and ends and text[i + 1 : i + 2] == " " and text[i + 2 : i + 3].isupper():
                clauses.append(text[start : i + 1].strip())
                start = i + 1
            continue
        if quoted or ch not in ".!?;":
            continue
        after = text[i + 1 : i + 2]
        if after and after not in " \"'":
            continue  # "3.5", "e.g", "?!" – not the end of a sentence
        if ch == "." and text[i - 1 : i] == "." and text[i + 2 : i + 3].islower():
            continue  # an ellipsis running on into the same sentence ("great... not!")
        if ch == ".":
            words = text[start:i].split()
            if words and words[-1].lower().strip("(\"'") in _ABBREVIATIONS:
                continue
        end = i + 1
        if after in "\"'" and after:
            end += 1  # a closing quote belongs to the sentence it ends
        clauses.append(text[start:end].strip())
        start = end
    clauses.append(text[start:].strip())
    # A stretch of end marks ("!!", "?") joins the clause before it rather than standing alone.
    merged: list[str] = []
    for clause in clauses:
        if not clause:
            continue
        if merged and not any(c.isalnum() for c in clause):
            merged[-1] = f"{merged[-1]}{clause}"
        else:
            merged.append(clause)
    return tuple(merged)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; contractions ("isn't", "it's") stay one token."""
    return _TOKEN.findall(clean(text).lower())


def proposition_of(words: list[str]) -> str:
    """The normalised proposition: lower-case tokens joined by single spaces."""
    return " ".join(words)


def without_negation(words: list[str]) -> list[str]:
    """The tokens with negation removed ("isn't" → "is"), for comparing polarity-flipped claims."""
    out: list[str] = []
    for word in words:
        if word in NEGATION_DROPPED_FROM_CORE:
            continue
        if word in IRREGULAR_NEGATIONS:
            out.append(IRREGULAR_NEGATIONS[word])
        elif word.endswith("n't"):
            out.append(word[:-3])
        else:
            out.append(word)
    return out


def starts_with(words: list[str], phrase: str) -> bool:
    """Do the tokens open with this phrase (compared token by token)?"""
    head = tokens(phrase)
    return words[: len(head)] == head


def contains_run(haystack: list[str], needle: list[str]) -> bool:
    """Does `needle` occur as a contiguous run of tokens in `haystack`?"""
    n = len(needle)
    return n > 0 and any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))
