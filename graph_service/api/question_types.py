"""GraphQL for what to ask a person next (SPEC 3.7): declared unknowns, the open targets ranked,
`nextQuestion` (a caller's valid preference, else the most material target), and answers whose
effect on the knowledge store is written in the answer's own journal entry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import After, First
from graph_service.api.connections import Connection, connection_of, paged
from graph_service.api.context import author_of, caught_up, journal_write, knowledge_read, service_of
from graph_service.api.errors import user_errors
from graph_service.api.knowledge_types import StatusChange, change_list
from graph_service.api.long_work import off_the_loop
from graph_service.api.node import Node
from graph_service.api.pages import Page
from graph_service.api.read_pages import question_of, question_page_now, unknown_of, unknown_page_now
from graph_service.api.scalars import Long
from graph_service.domain import Draft
from graph_service.from_graph.targets import GraphTargets
from graph_service.history import check_position
from graph_service.jobs.apart import run_apart
from graph_service.projection import KEEPS_NOW_READS
from graph_service.questions import plans
from graph_service.questions.candidates import Candidate, Score
from graph_service.questions.ranking import open_question_rows
from graph_service.questions.select import Selection
from graph_service.questions.state import QuestionRecord, QuestionState, UnknownRecord
from graph_service.questions.targets import StateTargets, TargetView
from graph_service.service import Service

R = TypeVar("R")


@strawberry.type(description="Why a target ranks where it does: what rests on it, then its age, then its id.")
class ScoreBreakdown:
    target: str = strawberry.field(description="The target's id: a dispute (d-…), an item (k-…) or an unknown.")
    target_kind: str = strawberry.field(description="dispute, stale_item or unknown.")
    dependents: int = strawberry.field(description="Items resting on it, transitively.")
    snapshots: int = strawberry.field(description="Recorded snapshots that read its items.")
    decisions: int = strawberry.field(description="Decisions declared to bear on it.")
    materiality: int = strawberry.field(description="The weighted sum (decisions 3, snapshots 2, dependents 1).")
    opened_at: int = strawberry.field(description="The journal position it became open at (older ranks first).")

    @classmethod
    def of(cls, s: Score) -> ScoreBreakdown:
        return cls(target=s.id, target_kind=s.kind, dependents=s.dependents, snapshots=s.snapshots,
                   decisions=s.decisions, materiality=s.materiality, opened_at=s.opened_at)


@strawberry.type(description="An unresolved question a client declared inside a situation.")
class Unknown(Node):
    id: strawberry.ID = strawberry.field(description="As declared, or derived from situation, factor and text "
                                                     "(unknown-<hash>).")
    situation: str = strawberry.field(description="The situation it arises in.")
    factor: str = strawberry.field(description="What is not known.")
    text: str = strawberry.field(description="The question, as a person would be asked it.")
    parent: str | None = strawberry.field(description="The decision or unknown it is a factor of.")
    affects: list[str] = strawberry.field(description="Item ids it bears on.")
    decisions: list[str] = strawberry.field(description="Decision snapshot ids it bears on.")
    declared_at: int = strawberry.field(description="The journal position it was declared at.")
    answered: bool = strawberry.field(description="True once a question about it was answered.")
    answer: str | None = strawberry.field(description="The answer, as given; null until answered.")
    answered_at: int | None = strawberry.field(description="The journal position of the answer; null until "
                                                           "answered.")

    @classmethod
    def of(cls, u: UnknownRecord) -> Unknown:
        return cls(id=u.id, situation=u.situation, factor=u.factor, text=u.text, parent=u.parent,
                   affects=list(u.affects), decisions=list(u.decisions), declared_at=u.declared_at,
                   answered=u.answered, answer=u.answer, answered_at=u.answered_at)


@strawberry.type(description="A question put to a person about one target, and its answer once given.")
class Question(Node):
    id: strawberry.ID = strawberry.field(description="<target>#q<n>: the n-th question asked about its target.")
    target: str = strawberry.field(description="The id of what it asks about: a dispute, a stale item or an unknown.")
    target_kind: str = strawberry.field(description="What the target is: dispute, stale_item or unknown.")
    subject: str = strawberry.field(description="What it is about: an unknown's factor, a dispute's key, a stale "
                                                "item's key or label.")
    parent: str | None = strawberry.field(description="The decision or situation its target sits in; null if none.")
    text: str = strawberry.field(description="The question as put to the person, formed from the target.")
    path: str = strawberry.field(description="preferred (the caller's target) or fallback (ranked).")
    preferred: str | None = strawberry.field(description="The target the caller preferred; null if none was named.")
    rejected: str | None = strawberry.field(description="Why the preference was not honoured, if one was named.")
    asked_at: int = strawberry.field(description="The journal position it was asked at.")
    asked_by: str = strawberry.field(description="The principal who asked it (nextQuestion).")
    answered: bool = strawberry.field(description="True once answered.")
    answer: str | None = strawberry.field(description="The answer as recorded; null until answered.")
    answered_at: int | None = strawberry.field(description="The journal position of the answer; null until "
                                                           "answered.")
    answered_by: str | None = strawberry.field(description="The principal who answered; null until answered.")

    @classmethod
    def of(cls, q: QuestionRecord) -> Question:
        return cls(id=q.id, target=q.target, target_kind=q.target_kind, subject=q.subject, parent=q.parent,
                   text=q.text, path=q.path, preferred=q.preferred, rejected=q.rejected, asked_at=q.asked_at,
                   asked_by=q.by, answered=q.answered, answer=q.answer, answered_at=q.answered_at,
                   answered_by=q.answered_by)


@strawberry.type(description="An open target with the question it would be asked and its score.")
class OpenQuestion:
    target: str = strawberry.field(description="The open target's id: a dispute, a stale item or an unknown.")
    target_kind: str = strawberry.field(description="What the target is: dispute, stale_item or unknown.")
    subject: str = strawberry.field(description="What it is about: an unknown's factor, a dispute's key, a stale "
                                                "item's key or label.")
    parent: str | None = strawberry.field(description="The decision or situation it sits in; null if none.")
    text: str = strawberry.field(description="The question it would be asked.")
    score: ScoreBreakdown = strawberry.field(description="Why it ranks where it does.")
    asked: str | None = strawberry.field(description="The question about it that awaits an answer, if any.")


@strawberry.type(description="The next question and how it was chosen (nothing open: id, target and text are null).")
class NextQuestion:
    id: str | None = strawberry.field(description="The question's id.")
    target: str | None = strawberry.field(description="The chosen target's id; null when nothing is open.")
    target_kind: str | None = strawberry.field(description="dispute, stale_item or unknown; null when nothing is "
                                                           "open.")
    text: str | None = strawberry.field(description="The question to put to the person; null when nothing is open.")
    path: str = strawberry.field(description="preferred: the caller's target was honoured; fallback: ranked.")
    preferred: str | None = strawberry.field(description="The target the caller preferred; null if none was named.")
    rejected: str | None = strawberry.field(
        description="Why a named preference was not honoured: missing, resolved or not_question_bearing.")
    score: ScoreBreakdown | None = strawberry.field(description="The chosen target's score; null when nothing is "
                                                                "open.")
    ranking: list[ScoreBreakdown] = strawberry.field(description="Every open target in fallback order.")
    asked: bool = strawberry.field(description="True when this request journalled the asking; false when the "
                                               "question was already open (or nothing is).")
    asked_at: int | None = strawberry.field(description="The journal position the question was asked at.")
    declared: str | None = strawberry.field(description="The unknown this request declared, if any.")
    seq: int | None = strawberry.field(description="The journal position this request wrote, if it wrote.")


@strawberry.type(description="What answering changed: the question, the effect, and item status changes.")
class AnswerOutcome:
    question: str = strawberry.field(description="The id of the question answered.")
    target: str = strawberry.field(description="The id of its target.")
    target_kind: str = strawberry.field(description="What the target is: dispute, stale_item or unknown.")
    answer: str = strawberry.field(description="The answer as recorded.")
    seq: int = strawberry.field(description="The journal position of the answer (its knowledge effect is written "
                                            "in the same entry).")
    effect: JSON = strawberry.field(description="What the answer meant for the target (resolve, confirm, retire, "
                                                "add a person-sourced fact).")
    changes: list[StatusChange] = strawberry.field(description="Every item whose status the answer changed.")
    added: list[str] = strawberry.field(description="Items the answer added (a person-sourced fact).")


@strawberry.input(description="An unresolved question inside a situation, and what it bears on.")
class UnknownInput:
    situation: str = strawberry.field(description="The situation it arises in.")
    text: str = strawberry.field(description="The question, as a person would be asked it.")
    factor: str | None = strawberry.field(default=None, description="What is not known.")
    affects: list[str] | None = strawberry.field(default=None, description="Item ids it bears on.")
    decisions: list[str] | None = strawberry.field(default=None, description="Decision snapshot ids it bears on.")
    parent: str | None = strawberry.field(default=None, description="The decision or unknown it is a factor of.")
    id: str | None = strawberry.field(default=None, description="Default: derived from situation, factor and text.")


def _declaration(unknown: UnknownInput) -> dict[str, Any]:
    return {"situation": unknown.situation, "text": unknown.text, "factor": unknown.factor,
            "affects": unknown.affects or (), "decisions": unknown.decisions or (), "parent": unknown.parent,
            "id": unknown.id}


class _NothingToAsk(Exception):
    """The request writes nothing: the chosen question is already open, or nothing is open."""


def _next(selection: Selection, record: QuestionRecord | None, asked: bool, declared: str | None,
          seq: int | None) -> NextQuestion:
    target = selection.target
    return NextQuestion(
        id=record.id if record else None, target=target.id if target else None,
        target_kind=target.kind if target else None,
        text=record.text if record else selection.text, path=selection.path, preferred=selection.preferred,
        rejected=selection.rejected, score=ScoreBreakdown.of(selection.score) if selection.score else None,
        ranking=[ScoreBreakdown.of(s) for s in selection.ranking], asked=asked,
        asked_at=record.asked_at if record else None, declared=declared, seq=seq)


Answered = Annotated[bool | None, strawberry.argument(description="true: only answered; false: only open; null: "
                                                                "all.")]


QuestionsAsOf = Annotated[Long | None, strawberry.argument(
    description="Answer as of this journal position (0 to the head), from the graph's history: what was asked, "
                "declared and answered by then. Null: now.")]


async def _page_of(service: Service, now: Callable[..., Page[R]], job: str, record_of: Callable[[Any], R],
                   as_of: int | None, **asked: Any) -> Page[R]:
    """The page of records `now(graph, head=the journal's head, **asked)` reads of the question side of the store
    as the graph holds it now; as of a position, the page the apart `job` cuts from the graph's history then, its
    records rebuilt by `record_of`: every question's and unknown's history is read, in a process of its own
    (graph_service.jobs.apart), off the event loop. The caller has caught up."""
    if as_of is None:
        return now(service.graph, head=service.journal.seq, **asked)
    check_position(as_of, service.journal.seq)
    return Page.from_json(await off_the_loop(lambda: run_apart(service.graph, job, as_of=as_of, **asked), "past"),
                          record_of)


async def _open_targets_off_the_loop(service: Service) -> tuple[int, list[Candidate]] | None:
    """The open targets as `nextQuestion` ranks them, read from the graph in a worker thread (as openQuestions
    reads them), with the position they are read at; None for a store whose graph does not keep what that
    reads, or one the graph is behind (the state's, then, on the loop)."""
    upto = service.journal.seq
    if not service.journal.keeps_at_least(KEEPS_NOW_READS) or service.journal.projected < upto:
        return None
    view, read = _ranking_view(service), knowledge_read(service)
    found = await off_the_loop(lambda: TargetView(GraphTargets(service.graph, read), view()).candidates(), "past")
    return upto, found


def _ranking_view(service: Service) -> Callable[[], QuestionState]:
    """What a ranking reads of the questions, for a worker thread: a copy of the state's taken now (it goes on
    changing), or, for a service that holds no questions, read from the graph when called (in the worker)."""
    if service.questions_in_graph:
        return service.state.questions.ranking_view
    view = service.state.questions.ranking_view()
    return lambda: view


async def _record(service: Service, read: Callable[[], R]) -> R:
    """A question's or an unknown's record: from the state, or from the graph in a worker thread."""
    return await off_the_loop(read, "past") if service.questions_in_graph else read()


@strawberry.type
class QuestionQuery:
    @strawberry.field(description="Every open target ranked as the fallback would rank it, with its question "
                                  "(nothing is written), a page at a time (first ≤ 500). The ranking moves as "
                                  "the store does, so a cursor names a place in this ranking, not a target.")
    @user_errors
    async def open_questions(self, info: strawberry.Info[Any, Any], first: First = None,
                       after: After = None, as_of: Annotated[Long | None, strawberry.argument(
                           description="Rank the targets that were open at this journal position (0 to the "
                                       "head), from the graph's history: the items, flags, disputes and questions "
                                       "as they stood then. Null: now.")] = None) -> Connection[OpenQuestion]:
        service = caught_up(info)
        if as_of is None and service.journal.keeps_at_least(KEEPS_NOW_READS):
            # The knowledge side from the graph (what is open and what it stands on, by indexes), the questions
            # from a copy of what the ranking reads of the state's: in a worker thread, so the loop serves other
            # requests while the ranking reads the graph (its own KnowledgeRead: the request's is the loop's).
            view, read = _ranking_view(service), knowledge_read(service)
            rows = await off_the_loop(lambda: open_question_rows(GraphTargets(service.graph, read), view()), "past")
        elif as_of is None:  # a store written before the graph kept what that reads: its state's, on the loop
            rows = open_question_rows(StateTargets(service.state.knowledge), service.state.questions)
        else:  # the same ranking over the state the graph's history gives (never a replay), in a process of
            # its own (graph_service.jobs.apart): it reads every item's, flag's, dispute's and question's history.
            check_position(as_of, service.journal.seq)
            rows = await off_the_loop(lambda: run_apart(service.graph, "open_questions_as_of", as_of=as_of), "past")
        found = [OpenQuestion(target=r["target"], target_kind=r["target_kind"], subject=r["subject"],
                              parent=r["parent"], text=r["text"], score=ScoreBreakdown.of(Score(**r["score"])),
                              asked=r["asked"]) for r in rows]
        return paged("open", list(enumerate(found, 1)), first, after)

    @strawberry.field(description="Questions in the order asked, a page at a time (first ≤ 500); answered: "
                                  "only answered (true) or open (false).")
    @user_errors
    async def questions(self, info: strawberry.Info[Any, Any], answered: Answered = None, first: First = None,
                        after: After = None, as_of: QuestionsAsOf = None) -> Connection[Question]:
        page = await _page_of(caught_up(info), question_page_now, "questions_as_of", question_of, as_of,
                              answered=answered, first=first, after=after)
        return connection_of("question", page.map(Question.of))

    @strawberry.field(description="Declared unknowns in the order declared, a page at a time (first ≤ 500); "
                                  "answered filters them.")
    @user_errors
    async def unknowns(self, info: strawberry.Info[Any, Any], answered: Answered = None, first: First = None,
                       after: After = None, as_of: QuestionsAsOf = None) -> Connection[Unknown]:
        page = await _page_of(caught_up(info), unknown_page_now, "unknowns_as_of", unknown_of, as_of,
                              answered=answered, first=first, after=after)
        return connection_of("unknown", page.map(Unknown.of))


@strawberry.type
class QuestionMutation:
    @strawberry.mutation(description="Declare an unresolved question inside a situation, linked to the items "
                                     "(affects) and decision snapshots (decisions) it bears on.")
    @user_errors
    async def declare_unknown(self, info: strawberry.Info[Any, Any],
                        situation: Annotated[str, strawberry.argument(description="The situation it arises in.")],
                        text: Annotated[str, strawberry.argument(
                            description="The question, as a person would be asked it.")],
                        factor: Annotated[str | None, strawberry.argument(description="What is not known.")] = None,
                        affects: Annotated[list[str] | None, strawberry.argument(
                            description="Item ids it bears on (each must exist).")] = None,
                        decisions: Annotated[list[str] | None, strawberry.argument(
                            description="Decision snapshot ids it bears on (each must exist).")] = None,
                        parent: Annotated[str | None, strawberry.argument(
                            description="The decision or unknown it is a factor of.")] = None,
                        id: Annotated[str | None, strawberry.argument(
                            description="Its id; default: derived from situation, factor and text.")] = None,
                        ) -> Unknown:
        service = service_of(info)
        declaration = _declaration(UnknownInput(situation=situation, text=text, factor=factor, affects=affects,
                                                decisions=decisions, parent=parent, id=id))
        done = await journal_write(info, lambda: service.plan_on_store(
            lambda store: plans.plan_declare(store, **declaration), declaration.get("decisions") or ()))
        record = await _record(service, lambda: service.state.questions.unknown(done.result["unknown"]))
        assert record is not None
        return Unknown.of(record)

    @strawberry.mutation(description="Choose the next question to ask a person and journal the asking. A valid "
                                     "preferred target (existing or declared by this request, question-bearing, "
                                     "unresolved) wins; otherwise the most material open target, then the oldest, "
                                     "then by id. A question already open about the chosen target is returned "
                                     "without a new entry.")
    @user_errors
    async def next_question(self, info: strawberry.Info[Any, Any],
                      preferred: Annotated[str | None, strawberry.argument(
                          description="The target the caller would ask about (a dispute, item or unknown id); "
                                      "honoured when valid.")] = None,
                      declare: Annotated[UnknownInput | None, strawberry.argument(
                          description="An unknown to declare first, in the same write (it may be the preferred "
                                      "target).")] = None) -> NextQuestion:
        service = service_of(info)
        declaration = _declaration(declare) if declare is not None else None
        chosen: list[plans.NextQuestion] = []
        ranked = await _open_targets_off_the_loop(service)

        def plan() -> Draft:
            with service.planning_questions():  # what it reads of the questions, read once for it
                return planned_next()

        def planned_next() -> Draft:
            # The targets read off the loop, if nothing was written since; else the state's, here (exact either way),
            # or the graph's, here, for a service that holds no knowledge state.
            candidates = ranked[1] if ranked is not None and ranked[0] == service.journal.seq else None
            targets = GraphTargets(service.graph, knowledge_read(service)) if service.knowledge_in_graph else None
            if candidates is None and targets is not None:
                candidates = TargetView(targets, service.state.questions).candidates()
            named = [preferred or "", *((declaration or {}).get("decisions") or ())]
            chosen[:] = [service.plan_on_store(
                lambda store: plans.plan_next_question(store, preferred, declaration, candidates, targets), named)]
            if chosen[0].draft is None:
                raise _NothingToAsk
            return chosen[0].draft

        try:
            done = await journal_write(info, plan)
        except _NothingToAsk:
            return _next(chosen[0].selection, chosen[0].existing, False, None, None)
        planned = chosen[0]
        if planned.existing is not None:  # only the request's declaration was written
            return _next(planned.selection, planned.existing, False, planned.declared, done.entry.seq)
        record = await _record(service, lambda: service.state.questions.question(done.result["question"]))
        return _next(planned.selection, record, True, planned.declared, done.entry.seq)

    @strawberry.mutation(description="A person's answer: a dispute's right value, whether a stale item still holds "
                                     "(confirmed; with false, optionally its value now), or an unknown's answer "
                                     "(value; fact may name its s and r), recorded as a person-sourced fact.")
    @user_errors
    async def answer_question(self, info: strawberry.Info[Any, Any],
                        question: Annotated[str, strawberry.argument(description="The open question's id.")],
                        value: Annotated[JSON | None, strawberry.argument(
                            description="A dispute's right value, an unknown's answer, or a stale item's value now "
                                        "(with confirmed false).")] = None,
                        confirmed: Annotated[bool | None, strawberry.argument(
                            description="For a stale item: whether it still holds.")] = None,
                        fact: Annotated[JSON | None, strawberry.argument(
                            description="For an unknown: the s and r of the fact recorded (default: its factor, "
                                        "\"is\").")] = None) -> AnswerOutcome:
        service = service_of(info)
        asked = await _record(service, lambda: service.state.questions.question(question)) if isinstance(
            question, str) else None
        done = await journal_write(info, lambda: service.plan_on_store(lambda store: plans.plan_answer(
            store, question, by=author_of(info), value=value, confirmed=confirmed, fact=fact),
            [asked.target] if asked is not None else ()))
        record = await _record(service, lambda: service.state.questions.question(done.result["question"]))
        assert record is not None and record.answer is not None
        r = done.result
        return AnswerOutcome(
            question=record.id, target=record.target, target_kind=record.target_kind, answer=record.answer,
            seq=done.entry.seq, effect=r["effect"],
            changes=change_list(r),
            added=[k["id"] for k in r["knowledge"]
                   if isinstance(k, dict) and k.get("admission") and k.get("id") and k["id"] != record.target])
