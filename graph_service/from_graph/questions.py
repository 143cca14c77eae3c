"""The questions' state as the graph holds it (StoreState's `questions_taken`), so that the service plans and applies
question writes without holding every unknown and question in memory.

What the question rules read by key (questions.state) is an unknown, a question, and the questions asked about a
target (which holds the one awaiting an answer); each is read by its index (`cypher/question_parts.cypher`), those an
application needs in one statement, with what the entries the graph does not hold yet changed (graph_service.
keyed_parts says why that is exact). What ranking the open targets reads is every declared unknown and every question
awaiting an answer: read from the graph a page at a time (by the indexes the `unknowns` and `questions` pages read),
with what those entries changed. What applying an entry gives comes from the entry alone (`applied_result`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from graph_service.domain import Applied
from graph_service.errors import UserError
from graph_service.from_graph.keyed_parts import KeyedParts, Needs
from graph_service.journal.chain import Entry
from graph_service.key_windows import PAST_EVERY_KEY, rows_by_place
from graph_service.projection import Projection
from graph_service.questions import ANSWER_QUESTION, ASK_QUESTION, DECLARE_UNKNOWN, UNKNOWN
from graph_service.questions.as_of import question_record, unknown_record
from graph_service.questions.state import QuestionRecord, QuestionState, UnknownRecord
from graph_service.storage.port import GraphPort

PAGE = 500
"""Rows a statement of a whole read (what a ranking reads) takes at a time."""


class QuestionParts(KeyedParts):
    """The questions' parts (KeyedParts), read by `cypher/question_parts.cypher`."""

    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {"unknowns": ("unknown",), "questions": ("question",),
                                                   "targets": ("about",)}

    def _fetch(self, wanted: Needs) -> dict[tuple[str, str], Any]:
        rows = self.graph.run("question_parts", {need: wanted.get(need, []) for need in self.NEEDS})
        found: dict[tuple[str, str], Any] = {}
        about: dict[str, list[QuestionRecord]] = {target: [] for target in wanted.get("targets", ())}
        for row in rows:
            part, key, props = row["part"], row["key"], row["props"]
            if part == "unknown":
                found[("unknown", key)] = unknown_record(key, props, row["items"], row["decisions"])
            elif part == "question":
                found[("question", key)] = question_record(key, props)
            else:
                about[key].append(question_record(props["id"], props))
        for target, asked in about.items():
            found[("about", target)] = tuple(sorted(asked, key=lambda q: (q.asked_at, q.id)))
        return found


def _pages(graph: GraphPort, query: str, params: dict[str, Any], place: str) -> Iterator[dict[str, Any]]:
    """Every row of the page query `query` (questions_page or unknowns_page), in place order, PAGE rows a
    statement, in one window of every place (key_windows.rows_by_place): no head to read first."""
    field = "declared_at" if place == "unknown" else "asked_at"
    yield from rows_by_place(graph, query, params, after=-1, head=0, limit=PAGE,
                             place=lambda row: int(row[place][field]), first=PAST_EVERY_KEY[1])


class GraphQuestions(QuestionState):
    """The question rules over `QuestionParts`: it holds no unknown or question of its own. A plan runs within
    `planning()`, so that what it reads (a whole read for a ranking included) is read once for it."""

    def __init__(self, parts: QuestionParts) -> None:
        super().__init__()
        self.parts = parts
        self._seq = 0  # the entry being applied
        self._local = threading.local()  # the whole read of the plan running in this thread

    # --- the parts --------------------------------------------------------------------------------

    def unknown(self, unknown_id: str) -> UnknownRecord | None:
        found: UnknownRecord | None = self.parts.get("unknown", unknown_id)
        return found

    def question(self, question_id: str) -> QuestionRecord | None:
        found: QuestionRecord | None = self.parts.get("question", question_id)
        return found

    def questions_about(self, target: str) -> list[QuestionRecord]:
        return list(self.parts.get("about", target) or ())

    def open_question_for(self, target: str) -> QuestionRecord | None:
        return next((q for q in self.questions_about(target) if not q.answered), None)

    def _keep_unknown(self, unknown: UnknownRecord) -> None:
        self.parts.keep("unknown", unknown.id, unknown, self._seq)

    def _put(self, question: QuestionRecord) -> None:
        asked = self.questions_about(question.target)
        again = [question if q.id == question.id else q for q in asked]
        if not any(q.id == question.id for q in asked):
            again.append(question)
        self.parts.keep("about", question.target, tuple(again), self._seq)
        self.parts.keep("question", question.id, question, self._seq)

    # --- whole reads: what ranking the open targets reads -------------------------------------------

    def ranking_view(self) -> QuestionState:
        """Every declared unknown and every question awaiting an answer, as of the last entry applied, in a state of
        their own (read from the graph a page at a time, with what the entries it does not hold yet changed)."""
        whole: QuestionState | None = getattr(self._local, "whole", None)
        if whole is not None:
            return whole
        graph = self.parts.graph
        unknowns = {r["unknown"]["id"]: unknown_record(r["unknown"]["id"], r["unknown"], r["items"], r["decisions"])
                    for r in _pages(graph, "unknowns_page", {"answered": None}, "unknown")}
        unknowns.update(self.parts.kept("unknown"))
        awaiting = {r["question"]["id"]: question_record(r["question"]["id"], r["question"])
                    for r in _pages(graph, "questions_page", {"answered": False}, "question")}
        for question in self.parts.kept("question").values():
            if question.answered:
                awaiting.pop(question.id, None)
            else:
                awaiting[question.id] = question
        self.parts.give("unknown", unknowns)  # the plan's reads of an unknown by id need no statement of their own
        whole = QuestionState.of(unknowns.values(), awaiting.values())
        if getattr(self._local, "planning", False):
            self._local.whole = whole  # read once for the plan
        return whole

    def unknowns(self, *, answered: bool | None = None) -> list[UnknownRecord]:
        return self.ranking_view().unknowns(answered=answered)

    def unknown_candidates(self) -> list[Any]:
        return self.ranking_view().unknown_candidates()

    def questions(self, *, answered: bool | None = None) -> list[QuestionRecord]:
        if answered is not False:
            raise RuntimeError("this service holds no questions: every question is read from the graph a page at a "
                               "time (the questions page)")
        return self.ranking_view().questions(answered=False)

    @contextmanager
    def planning(self) -> Iterator[None]:
        """The context a plan runs in (Service.plan_on_store): what it reads is read once for it. Re-entrant: a
        plan within a plan reads with the outer one."""
        local = self._local
        if getattr(local, "planning", False):
            yield
            return
        with self.parts.reading({}):
            local.planning, local.whole = True, None
            try:
                yield
            finally:
                local.planning, local.whole = False, None

    # --- applying ---------------------------------------------------------------------------------

    def apply(self, entry: Entry) -> Applied:
        if entry.seq <= self.parts.held():  # the graph holds what it did: only what it gives
            return Applied(Projection(), applied_result(entry))
        self._seq = entry.seq
        with self.parts.reading(entry_needs(entry), entry.seq):
            return super().apply(entry)

    def prepare(self, entry: Entry) -> None:
        """Read what applying this landed entry reads, now (KeyedParts.prepare)."""
        try:
            needs = entry_needs(entry)
        except (KeyError, TypeError, UserError):
            return  # a malformed entry: its application refuses it
        self.parts.prepare(entry.seq, needs)
        if entry.op == ANSWER_QUESTION:  # the unknown it answers, named by its question
            asked = self.parts.prepared(entry.seq, "question", entry.payload["question"])
            if isinstance(asked, QuestionRecord) and asked.target_kind == UNKNOWN:
                self.parts.prepare(entry.seq, {"unknowns": [asked.target]})

    def read_ahead(self, entries: list[Entry]) -> None:
        """A bulk load about to apply these entries reads what their applications read in one statement."""
        needs = []
        for entry in entries:
            try:
                needs.append(entry_needs(entry))
            except (KeyError, TypeError, UserError):
                continue
        self.parts.read_ahead(needs)


def entry_needs(entry: Entry) -> Needs:
    """What applying a question entry reads (KeyError or TypeError for a malformed one, which its application
    refuses too). An answer's unknown, named by its question, is read when asked for."""
    p = entry.payload
    if entry.op == DECLARE_UNKNOWN:
        return {"unknowns": [p["id"]]}
    if entry.op == ASK_QUESTION:
        declared = p.get("declare")
        unknowns = [p["target"], *([declared["id"]] if isinstance(declared, dict) else [])]
        return {"unknowns": unknowns, "questions": [p["id"]], "targets": [p["target"]]}
    if entry.op == ANSWER_QUESTION:
        return {"questions": [p["question"]]}
    return {}


def applied_result(entry: Entry) -> dict[str, Any]:
    """What applying a question entry gives (its own `Applied.result`), from the entry alone."""
    p = entry.payload
    if entry.op == DECLARE_UNKNOWN:
        return {"unknown": p["id"]}
    if entry.op == ASK_QUESTION:
        result = {"question": p["id"], "text": p["text"]}
        if p.get("declare") is not None:
            result["unknown"] = p["declare"]["id"]
        return result
    if entry.op == ANSWER_QUESTION:
        return {"question": p["question"], "effect": p["effect"]}
    raise ValueError(f"QuestionState does not handle {entry.op!r}")
