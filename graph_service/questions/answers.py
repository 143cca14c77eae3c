"""What an answer means for the knowledge it was about: the effect the knowledge core carries out.

This package records questions and answers; resolving a dispute, confirming an item or adding a
fact belongs to the knowledge core. An answer therefore carries, in its journal payload and as
its apply result, one `effect` telling the store what to do next:

- dispute: ``{"resolve_dispute": dispute_id, "key": subject, "value": answer}``
- stale item, still true: ``{"confirm_item": item_id}``
- stale item, no longer true: ``{"retire_item": item_id}``, plus ``"value"`` when the person said
  what holds now (the store may record that as a person-sourced fact)
- unknown: ``{"add_fact": {"s", "r", "o", "scope"}, "source": "person", "answers_unknown": id}``
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graph_service.errors import UserError
from graph_service.questions.candidates import DISPUTE, STALE_ITEM, UNKNOWN

if TYPE_CHECKING:
    from graph_service.questions.state import QuestionRecord, UnknownRecord

MAX_TEXT = 2000
DEFAULT_FACT_RELATION = "is"
CONFIRMED = "confirmed"
NOT_CONFIRMED = "not confirmed"


def clean_text(value: object, field: str, *, required: bool = True) -> str:
    """A stripped string of at most MAX_TEXT characters, or a UserError naming `field`."""
    if not isinstance(value, str):
        raise UserError(f"{field} must be a string, got {type(value).__name__}", field=field)
    value = value.strip()
    if required and not value:
        raise UserError(f"{field} must not be empty", field=field)
    if len(value) > MAX_TEXT:
        raise UserError(f"{field} is longer than {MAX_TEXT} characters", field=field)
    return value


def answer_effect(
    question: QuestionRecord,
    unknown: UnknownRecord | None,
    *,
    value: object,
    confirmed: object,
    fact: object,
) -> tuple[str, dict[str, Any]]:
    """The answer as the Question node keeps it, and the effect on the target; UserError names the field.

    `unknown` is the unknown the question is about (None for disputes and stale items).
    """
    if fact is not None and question.target_kind != UNKNOWN:
        raise UserError("fact applies only to answers about an unknown", field="fact")
    if confirmed is not None and question.target_kind != STALE_ITEM:
        raise UserError("confirmed applies only to stale items", field="confirmed")
    if question.target_kind == DISPUTE:
        answer = clean_text(value, "value")
        return answer, {"resolve_dispute": question.target, "key": question.subject, "value": answer}
    if question.target_kind == STALE_ITEM:
        return _stale_item_effect(question.target, value, confirmed)
    if unknown is None:
        raise ValueError(f"question {question.id!r} is about an unknown that is not declared")
    return _unknown_effect(unknown, value, fact)


def _stale_item_effect(item: str, value: object, confirmed: object) -> tuple[str, dict[str, Any]]:
    if not isinstance(confirmed, bool):
        raise UserError("confirmed must be true or false for a stale item", field="confirmed")
    if confirmed:
        if value is not None:
            raise UserError("value is only given when the item is not confirmed", field="value")
        return CONFIRMED, {"confirm_item": item}
    if value is None:
        return NOT_CONFIRMED, {"retire_item": item}
    now = clean_text(value, "value")
    return now, {"retire_item": item, "value": now}


def _unknown_effect(unknown: UnknownRecord, value: object, fact: object) -> tuple[str, dict[str, Any]]:
    answer = clean_text(value, "value")
    if fact is not None and not isinstance(fact, Mapping):
        raise UserError("fact must be a mapping with 's' and/or 'r'", field="fact")
    names = dict(fact or {})
    if set(names) - {"s", "r"}:
        raise UserError("fact may only name 's' and 'r'; its 'o' is the answer", field="fact")
    added = {
        "s": clean_text(names.get("s", unknown.factor), "fact.s"),
        "r": clean_text(names.get("r", DEFAULT_FACT_RELATION), "fact.r"),
        "o": answer,
        "scope": unknown.situation,
    }
    return answer, {"add_fact": added, "source": "person", "answers_unknown": unknown.id}
