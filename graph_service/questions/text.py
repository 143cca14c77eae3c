"""The question put to a person, formulated deterministically from its target.

The text always names the target's own subject (the factor, the disputed key, the stale item);
the parent decision or situation appears only as context, so a question about factor X of
decision D asks about X, never a generic question about D.
"""

from __future__ import annotations

from graph_service.questions.candidates import DISPUTE, STALE_ITEM, UNKNOWN, Candidate


def _clean(text: str) -> str:
    return " ".join(text.split())


def _as_question(text: str) -> str:
    text = _clean(text).rstrip(".!:; ")
    return text if text.endswith("?") else f"{text}?"


def _sentence(text: str) -> str:
    text = _clean(text)
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _context(candidate: Candidate) -> str:
    return f" (in {_clean(candidate.parent)})" if candidate.parent else ""


def _quoted(values: tuple[str, ...]) -> list[str]:
    # Sorted and de-duplicated so the text does not depend on the order the store listed them in.
    return [f"'{_clean(v)}'" for v in sorted(set(values))]


def _either(options: list[str]) -> str:
    if len(options) == 2:
        return f"{options[0]} or {options[1]}"
    return f"{', '.join(options[:-1])} or {options[-1]}"


def formulate(candidate: Candidate) -> str:
    """The question text for a target; the same candidate always gives the same text."""
    subject, context = _clean(candidate.subject), _context(candidate)
    if candidate.kind == UNKNOWN:
        detail = _clean(candidate.detail)
        if detail and detail != subject:
            return f"About {subject}{context}: {_as_question(detail)}"
        # The subject is the question itself (declared without a separate factor name).
        return f"{_as_question(subject)[:-1]}{context}?"
    if candidate.kind == DISPUTE:
        options = _quoted(candidate.values)
        if len(options) >= 2:
            return f"Which is right for {subject}{context}: {_either(options)}?"
        return f"What is the right value for {subject}{context}? The sources disagree."
    if candidate.kind == STALE_ITEM:
        current = _quoted(candidate.values)
        reason = (
            f" It was flagged for re-confirmation: {_sentence(candidate.detail)}"
            if candidate.detail.strip()
            else ""
        )
        if not current:
            return f"Does {subject}{context} still hold?{reason}"
        value = _either(current) if len(current) > 1 else current[0]
        return f"Is it still true that {subject} is {value}{context}?{reason}"
    raise ValueError(f"no question form for kind {candidate.kind!r}")
