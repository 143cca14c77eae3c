"""Planning question writes against the whole store: one client request, one journal entry.

The question core plans declarations, asks and answers on its own state; here they meet the
knowledge store. A declaration's `affects` and `decisions` must exist; `nextQuestion` ranks every
open target of the store, and a declaration made in the same request travels inside the ask entry;
an answer carries the knowledge sub-operations its effect needs (``knowledge``: a list of
``{op, payload}``, each planned and validated by the knowledge planner now), which
`StoreState.apply` applies within the answer's own entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph_service.domain import Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import canonical_json
from graph_service.knowledge import ops, planning
from graph_service.knowledge.state import KnowledgeState
from graph_service.questions.answers import clean_text
from graph_service.questions.candidates import DISPUTE, STALE_ITEM, Candidate
from graph_service.questions.select import Selection, select_next_question
from graph_service.questions.state import QuestionRecord, QuestionState
from graph_service.questions.targets import NOT_ASKED_AS_STALE, KnowledgeTargets, StateTargets, TargetView

if TYPE_CHECKING:
    from graph_service.state import StoreState

PERSON = "person"
# The knowledge scope a fact answering an unknown is recorded in: the unknown's situation.
SITUATION_SCOPE = "situation"


def plan_declare(
    store: StoreState,
    situation: str,
    text: str,
    *,
    factor: str | None = None,
    affects: Iterable[str] = (),
    decisions: Iterable[str] = (),
    parent: str | None = None,
    id: str | None = None,
) -> Draft:
    """Draft an `unknown.declare`; the items it affects and the decisions (snapshots) it bears on must exist."""
    draft = store.questions.plan_declare_unknown(
        situation, text, factor=factor, affects=affects, decisions=decisions, parent=parent, id=id
    )
    for item_id in draft.payload["affects"]:
        if item_id not in store.knowledge.items:
            raise NotFound(f"no item {item_id!r} in the store", field="affects")
    for snapshot_id in draft.payload["decisions"]:
        if snapshot_id not in store.knowledge.snapshots:
            raise NotFound(f"no recorded decision snapshot {snapshot_id!r}", field="decisions")
    return draft


@dataclass(frozen=True, slots=True)
class NextQuestion:
    """The selection, the entry to append (None: nothing to write), and the open question it found.

    `existing` is the question about the chosen target that already awaits an answer: it is given
    back instead of asking again (the draft is then only the request's declaration, if any).
    """

    selection: Selection
    draft: Draft | None
    existing: QuestionRecord | None
    declared: str | None


def select(store: StoreState, preferred: str | None = None, declared: Draft | None = None,
           candidates: list[Candidate] | None = None, targets: KnowledgeTargets | None = None) -> Selection:
    """The next question over every open target of the store (and the one `declared` adds); `candidates`:
    the open targets read beforehand (see plan_next_question), else read from the state; `targets`: what the
    knowledge side of a target is read from (default: the store's knowledge state)."""
    view = TargetView(targets if targets is not None else StateTargets(store.knowledge), store.questions)
    if candidates is None:
        candidates = view.candidates()
    added = [view.added(declared, store.position + 1)] if declared is not None else []
    extra: list[Any] = []
    others: dict[str, str] = {}
    if isinstance(preferred, str) and preferred.strip():
        extra, others = view.preference(store.knowledge, preferred, [c.id for c in (*candidates, *added)])
    return select_next_question([*candidates, *extra], preferred, added, others=others)


def plan_next_question(
    store: StoreState, preferred: str | None = None, declare: Mapping[str, Any] | None = None,
    candidates: list[Candidate] | None = None, targets: KnowledgeTargets | None = None,
) -> NextQuestion:
    """Choose the next question and draft asking it (with the request's declaration, if any). `candidates`:
    the store's open targets as TargetView.candidates gives them at its position, read beforehand (from the
    graph); None: read from the store's state here. `targets`: as `select` takes them."""
    declared = plan_declare(store, **dict(declare)) if declare is not None else None
    declared_id = declared.payload["id"] if declared is not None else None
    selection = select(store, preferred, declared, candidates, targets)
    existing = store.questions.open_question_for(selection.target.id) if selection.target else None
    if selection.target is None or existing is not None:
        return NextQuestion(selection, declared, existing, declared_id)
    return NextQuestion(selection, store.questions.plan_ask(selection, declared), None, declared_id)


def _target_open(store: StoreState, record: QuestionRecord) -> bool:
    knowledge = store.knowledge
    if record.target_kind == DISPUTE:
        event = knowledge.dispute_event(record.target)
        return event is not None and event.open
    if record.target_kind == STALE_ITEM:
        rec = knowledge.items.get(record.target)
        return (
            rec is not None
            and rec.retired_at is None
            and rec.status not in NOT_ASKED_AS_STALE
            and bool(knowledge.stale_reasons(record.target))
        )
    return True  # an unknown: the question core knows whether it was answered


def plan_answer(
    store: StoreState,
    question: str,
    *,
    by: str,
    value: Any = None,
    confirmed: bool | None = None,
    fact: Mapping[str, str] | None = None,
) -> Draft:
    """Draft a `question.answer` carrying the knowledge sub-operations of its effect.

    A dispute's `value` is one of the disputed values (any JSON, as the items hold it); a stale
    item's `confirmed` says whether it still holds (False with a `value`: a fact's value now);
    an unknown's `value` becomes a person-sourced fact in the unknown's situation.
    """
    questions: QuestionState = store.questions
    record = questions.question(question) if isinstance(question, str) else None
    target_open = _target_open(store, record) if record is not None else True
    text = value if value is None or isinstance(value, str) else canonical_json(value)
    draft = questions.plan_answer(question, value=text, confirmed=confirmed, fact=fact, target_open=target_open)
    assert record is not None  # plan_answer raised NotFound otherwise
    subs = _effect_ops(store.knowledge, record, draft.payload["effect"], value, by)
    return Draft(draft.op, {**draft.payload, "knowledge": [{"op": d.op, "payload": d.payload} for d in subs]})


def _admitted(draft: Draft) -> Draft:
    if draft.op == ops.REFUSED:
        raise Conflict(f"the knowledge store refuses the answer: {draft.payload.get('why')}", field="value")
    return draft


def _effect_ops(
    knowledge: KnowledgeState, record: QuestionRecord, effect: Mapping[str, Any], raw: Any, by: str
) -> list[Draft]:
    why = f"answer to question {record.id}"
    if "resolve_dispute" in effect:
        event = knowledge.dispute_event(effect["resolve_dispute"])
        assert event is not None and event.open  # the answer's target is open (_target_open)
        return [planning.plan_resolve(knowledge, event.key, raw, why)]
    if "confirm_item" in effect:
        rec = knowledge.items[effect["confirm_item"]]
        # A person saying it still holds is a newer person assertion of the same item: that is
        # what answers its pending flags and restarts its re-confirmation period.
        again = {"kind": rec.kind, "body": rec.body, "scope": rec.scope, "source": PERSON}
        return [_admitted(planning.plan_add(knowledge, again, by=by))]
    if "retire_item" in effect:
        item_id = effect["retire_item"]
        drafts = [planning.plan_retire(knowledge, item_id, why)]
        if "value" in effect:
            drafts.append(_replacement(knowledge, item_id, effect["value"], by))
        return drafts
    if "add_fact" in effect:
        f = effect["add_fact"]
        fact = {
            "kind": "fact",
            "body": {"s": f["s"], "r": f["r"], "o": f["o"]},
            "scope": {SITUATION_SCOPE: f["scope"]},
            "source": effect.get("source", PERSON),
        }
        return [_admitted(planning.plan_add(knowledge, fact, by=by))]
    raise ValueError(f"question {record.id}: no knowledge operation for effect {sorted(effect)}")


def _replacement(knowledge: KnowledgeState, item_id: str, value: str, by: str) -> Draft:
    rec = knowledge.items[item_id]
    if rec.key is None or "o" not in rec.body:
        raise UserError(f"{item_id} is a {rec.kind}, not a fact: no value can replace it", field="value")
    if value in (rec.body["o"], canonical_json(rec.body["o"])):
        raise UserError("value is the item's current value; answer with confirmed: true", field="value")
    body = {**rec.body, "o": clean_text(value, "value")}
    fact = {"kind": "fact", "body": body, "scope": rec.scope, "source": PERSON, "supersedes": item_id}
    return _admitted(planning.plan_add(knowledge, fact, by=by))
