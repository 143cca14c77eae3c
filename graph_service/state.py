"""The whole store's state: every pure domain, and what one domain's entry does to another.

Pure (no I/O). One journal entry is applied by the domain that owns its operation; the effects
that cross domains are applied within the same entry, so replaying the journal always gives the
same state: an item that becomes retracted is a root gone for the belief layer, what someone said
becomes evidence, an observation marked inaccurate is flagged on its node.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

from graph_service.beliefs.held import HELD_BELIEFS
from graph_service.beliefs.state import OPS as BELIEF_OPS
from graph_service.beliefs.state import BeliefState
from graph_service.domain import Applied
from graph_service.errors import Conflict, NotFound
from graph_service.from_graph.item_statuses import ItemStatuses, items_named
from graph_service.from_graph.questions import GraphQuestions, QuestionParts
from graph_service.from_graph.stream import GraphStatements, GraphStream, StreamParts
from graph_service.journal.chain import Entry
from graph_service.journal.notes import NoteDomain
from graph_service.knowledge.ops import subject_of
from graph_service.knowledge.state import KnowledgeState
from graph_service.projection import Projection
from graph_service.questions import ANSWER_QUESTION, QuestionState
from graph_service.questions import OPS as QUESTION_OPS
from graph_service.statements import OP_SAY, StatementState, message_observation_id
from graph_service.stream.state import OPS as STREAM_OPS
from graph_service.stream.state import StreamState

RETRACTED = "retracted"
KNOWLEDGE_FINGERPRINT = "knowledge"  # the ids of the Fingerprint nodes (see StoreState._kept_for_writes)
BELIEFS_FINGERPRINT = "beliefs"


@dataclass
class TakenOperation:
    """One knowledge operation of an entry as the graph gives it (StoreState's `knowledge_taken`): the status
    it gave each Item node it wrote and, for an entry whose projection the graph does not hold yet, what to
    write (its own changes, then its bookkeeping: the other domains' effects go between the two, as `apply`
    writes them) and its result."""

    statuses: Mapping[str, str]
    projection: Projection = field(default_factory=Projection)
    bookkeeping: Projection = field(default_factory=Projection)
    result: Any = None


KnowledgeTaken = Callable[[Entry], list[TakenOperation]]
"""A knowledge entry's operations (one, or an answer's) as the graph gives them."""


class BeliefsTaken(Protocol):
    """The belief layer as the graph gives it, an entry at a time (graph_service.from_graph.beliefs)."""

    def takes(self, seq: int) -> bool: ...
    def state_for(self, seq: int) -> BeliefState: ...
    def applied_on(self, seq: int, state: BeliefState) -> None: ...
    def sums(self, seq: int, before: tuple[int, int],
             after: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]: ...
    def reset(self) -> None: ...


class StoreState:
    """All domains, fed entries in journal order.

    With `beliefs_taken`, the state holds no belief layer: an entry the graph holds changes nothing of it here (its
    effects are in the graph), and one it does not hold is applied on a scratch layer that reads what it touches of
    the graph (`beliefs_taken.state_for`), which `beliefs` is while the entry is applied.

    With `statuses_taken` (only beside `knowledge_taken` and `beliefs_taken`), no item's status is kept either: what
    the other domains ask of an item is read from its node (graph_service.from_graph.item_statuses), and a knowledge
    entry the graph holds needs nothing here (its effects on the layer are in the graph).

    With `questions_taken`, the questions hold no state either (graph_service.from_graph.questions).

    With `stream_taken`, the stream and the statements hold no state: their rules read the parts they touch from
    the graph, with what the entries it does not hold yet changed (graph_service.from_graph.stream).

    With `knowledge_taken`, the knowledge domain is not applied: a knowledge entry (and an answer's knowledge
    operations) is taken as the graph gives it (`knowledge_taken(entry)`), and only its effects on the other
    domains are applied here, from the statuses it gave the items it wrote: each item's status, and the evidence
    that goes with an item that fell or comes back with it. The knowledge state stays empty, so what reads it
    (its fingerprint, its planners) is not for this mode.
    """

    def __init__(self, knowledge_taken: KnowledgeTaken | None = None,
                 beliefs_taken: BeliefsTaken | None = None, stream_taken: StreamParts | None = None,
                 questions_taken: QuestionParts | None = None, statuses_taken: ItemStatuses | None = None) -> None:
        self.knowledge_taken = knowledge_taken
        self.statuses_taken = statuses_taken
        self.beliefs_taken = beliefs_taken
        self.stream_taken = stream_taken
        self.questions_taken = questions_taken
        self.notes = NoteDomain()
        self.knowledge = KnowledgeState()
        self.beliefs: BeliefState = BeliefState() if beliefs_taken is None else HELD_BELIEFS  # type: ignore[assignment]
        if stream_taken is None:
            self.stream = StreamState()
            self.statements = StatementState(self.stream)
        else:
            self.stream = GraphStream(stream_taken)
            self.statements = GraphStatements(self.stream)
        self.questions = QuestionState() if questions_taken is None else GraphQuestions(questions_taken)
        self.position = 0
        self.skip: frozenset[str] = frozenset()  # items a replay leaves out (see `replay`)
        self._observations: set[str] = set()
        # Each written item's status as its Item node holds it: what the other domains ask of an item
        # (`present`, `require_roots`), kept apart from the knowledge state so that they can be answered
        # without it (a knowledge entry taken as the graph gives it: `knowledge_taken`).
        self._item_status: dict[str, str] = {}
        self._graph_holds = 0

    @property
    def _domains(self) -> tuple[Any, ...]:
        return (self.notes, self.knowledge, self.beliefs, self.stream, self.statements, self.questions)

    def graph_holds_upto(self, seq: int) -> None:
        """The graph holds what every entry up to `seq` wrote, and they are applied for the state alone (a start's
        replay): what they would write need not be built. The beliefs' is not (their projection is built from
        the state and read by nothing else); the knowledge domain's is, as the other domains read its statuses
        from it."""
        self._graph_holds = seq

    def resume_at(self, seq: int) -> None:
        """The journal resumes after the entry at `seq` without replaying any (its domains hold nothing the graph
        holds): the state is at that position."""
        self.position = seq

    def reset(self) -> None:
        """Back to the empty state (before a full replay)."""
        if self.beliefs_taken is not None:
            self.beliefs_taken.reset()
        for parts in (self.stream_taken, self.questions_taken, self.statuses_taken):
            if parts is not None:
                parts.reset()
        self.__init__(self.knowledge_taken, self.beliefs_taken, self.stream_taken,  # type: ignore[misc]
                      self.questions_taken, self.statuses_taken)

    def handles(self, op: str) -> bool:
        return any(d.handles(op) for d in self._domains)

    def apply(self, entry: Entry) -> Applied:
        """Apply one entry with its cross-domain effects; deterministic in the journal prefix."""
        self.position = entry.seq
        taken_beliefs = self.beliefs_taken
        if taken_beliefs is not None:
            self.beliefs = HELD_BELIEFS if taken_beliefs.takes(entry.seq) else taken_beliefs.state_for(entry.seq)  # type: ignore[assignment]
        self.beliefs.projecting = entry.seq > self._graph_holds
        summed = self.knowledge.fingerprint_sum()
        believed = self.beliefs.running_fingerprint.sum()
        for domain in self._domains:
            if domain.handles(entry.op):
                break
        else:
            raise RuntimeError(f"journal entry {entry.seq} has an operation no domain applies: {entry.op!r}")
        taken = domain is self.knowledge and self.knowledge_taken is not None
        with self._reading_statuses(entry.seq):
            applied = Applied() if taken else domain.apply(entry)
            self._effects(entry, applied, domain, taken, summed)
        # What a read of the fingerprint now reads, in one lookup (every domain's entries move beliefs).
        moved = self.beliefs.running_fingerprint.sum()
        if taken_beliefs is not None and self.beliefs is not HELD_BELIEFS:
            if moved != believed:  # the scratch layer's sum is what its entries moved: the store's is read
                believed, moved = taken_beliefs.sums(entry.seq, believed, moved)
            taken_beliefs.applied_on(entry.seq, self.beliefs)
        kept_fingerprint(applied.projection, BELIEFS_FINGERPRINT, believed, moved, entry.seq)
        return applied

    def _reading_statuses(self, seq: int) -> AbstractContextManager[None]:
        # With the statuses read from the graph, what `prepare` read of them for this entry is taken.
        return nullcontext() if self.statuses_taken is None else self.statuses_taken.reading({}, seq)

    def _statuses_held(self, seq: int) -> bool:
        """Does the graph hold what entry `seq` did, and is a status not kept here (statuses_taken)? Then its
        knowledge operations need nothing here: their effects on the layer are in the graph too."""
        return self.statuses_taken is not None and seq <= self.statuses_taken.held()

    def _effects(self, entry: Entry, applied: Applied, domain: Any, taken: bool, summed: tuple[int, int]) -> None:
        """What one domain's entry does to the others, in the same entry (`summed`: the knowledge state's running
        sum before it)."""
        if taken and self._statuses_held(entry.seq):
            # Nothing to take (a start reads nothing for it); only an awaited writer racing another process's
            # projection of its own entry would read this result, and it says no change.
            applied.result = {"changes": {}}
        elif taken:
            changes, results = self._take_knowledge(entry, applied)
            applied.result = results[0] if results and results[0] is not None else {"changes": changes}
        elif domain is self.knowledge:
            self._note_statuses(applied)
            self._items_gone(entry, applied)
            self._kept_for_writes(entry, applied, summed)
        elif domain is self.stream and self.stream_taken is None:  # a stream read from the graph keeps its own
            self._observations.update(row["id"] for row in (applied.result or {}).get("rows", ()))
        elif domain is self.statements and entry.op == OP_SAY:
            self._said(entry, applied)
        elif domain is self.beliefs and entry.op == "belief.correct":
            self._marked_inaccurate(entry, applied)
        if domain is self.beliefs or (domain is self.statements and entry.op == OP_SAY):
            self._late_rows(entry, applied)
        elif domain is self.questions and entry.op == ANSWER_QUESTION:
            self._answered(entry, applied)

    def prepares(self, entry: Entry) -> bool:
        """Does applying this entry read the graph (a knowledge entry, or an answer carrying knowledge operations,
        taken from the graph: `knowledge_taken`)? Then `prepare` reads it beforehand, off the event loop."""
        return (self._prepares_knowledge(entry) or self._prepares_beliefs(entry) or self._prepares_stream(entry)
                or self._prepares_questions(entry) or (self.statuses_taken is not None and bool(items_named(
                    entry.payload))))

    def _statuses_read(self, entry: Entry) -> list[str]:
        """The items whose statuses applying this entry reads that can be told beforehand: those its knowledge
        operations write, as prepared, where no result says what they changed (`_status_changes`), and the roots a
        belief write names."""
        prepared = getattr(self.knowledge_taken, "prepared", None)
        operations = prepared(entry.seq) if prepared is not None else []
        return [i for operation in operations if operation.result is None
                for i in operation.statuses] + items_named(entry.payload)

    def _prepares_questions(self, entry: Entry) -> bool:
        return self.questions_taken is not None and entry.op in QUESTION_OPS

    def _prepares_stream(self, entry: Entry) -> bool:
        return self.stream_taken is not None and (entry.op in STREAM_OPS or entry.op == OP_SAY
                                                  or _marks_observation(entry) is not None)

    def _prepares_knowledge(self, entry: Entry) -> bool:
        return self.knowledge_taken is not None and hasattr(self.knowledge_taken, "prepare") and (
            self.knowledge.handles(entry.op) or (entry.op == ANSWER_QUESTION and bool(entry.payload.get("knowledge"))))

    def _prepares_beliefs(self, entry: Entry) -> bool:
        # A belief write's own entry, or a statement's, whose claims become evidence (the cascades other entries set
        # off on the layer read as they are applied).
        return self.beliefs_taken is not None and hasattr(self.beliefs_taken, "prepare") and (
            entry.op in BELIEF_OPS or entry.op == OP_SAY)

    def prepare(self, entry: Entry) -> None:
        """Read what applying this entry will read of the graph (see `prepares`); changes no state."""
        if self._prepares_knowledge(entry):
            self.knowledge_taken.prepare(entry)  # type: ignore[union-attr]
        if self.statuses_taken is not None:
            self.statuses_taken.prepare(entry.seq, {"items": self._statuses_read(entry)})
        if self._prepares_beliefs(entry):
            self.beliefs_taken.prepare(entry)  # type: ignore[union-attr]
        if self._prepares_questions(entry):
            self.questions.prepare(entry)  # type: ignore[attr-defined]
        if self._prepares_stream(entry):
            marked = _marks_observation(entry)
            if marked is not None:
                self.stream_taken.prepare(entry.seq, {"observations": [marked]})  # type: ignore[union-attr]
            else:
                (self.statements if entry.op == OP_SAY else self.stream).prepare(entry)  # type: ignore[union-attr]

    def read_ahead(self, entries: Sequence[Entry]) -> None:
        """A bulk load about to apply these entries in turn says so first, so that what applying them reads of the
        graph (knowledge taken from it, `knowledge_taken`; the belief layer's, `beliefs_taken`; the stream's,
        `stream_taken`) is read in a few statements, not one an entry. Changes nothing any entry's application
        gives."""
        for taken in (self.knowledge_taken, self.beliefs_taken):
            read_ahead = getattr(taken, "read_ahead", None)
            if read_ahead is not None:
                read_ahead(entries)
        for domain in (self.stream, self.questions):
            if isinstance(domain, (GraphStream, GraphQuestions)):
                domain.read_ahead(list(entries))

    def has_observation(self, observation_id: str) -> bool:
        """Was an Observation with this id written (a stream row or a message)?"""
        if isinstance(self.stream, GraphStream):
            return self.stream.has_observation(observation_id)
        return observation_id in self._observations

    def require_roots(self, root_kind: str | None, root_ids: Iterable[str], field: str) -> None:
        """NotFound unless every item or observation named as an evidence root exists (else the graph
        would grow a bare node for it), and Conflict for an item that is retracted: a row is live
        exactly while every root it cites is present, so a row on a gone root would count for nothing
        (refused, so the client learns it now). Other root kinds are the belief layer's to check."""
        for root in root_ids:
            if root_kind == "item" and self._status_of(root) is None:
                raise NotFound(f"{field}: no item {root!r}", field=field)
            if root_kind == "item" and not self.present("item", root):
                raise Conflict(f"{field}: item {root!r} is retracted; evidence must rest on what is present",
                               field=field)
            if root_kind == "observation" and not self.has_observation(root):
                raise NotFound(f"{field}: no observation {root!r}", field=field)

    def _said(self, entry: Entry, applied: Applied) -> None:
        """A statement's factual assertions become evidence in the same entry (SPEC 3.5)."""
        if isinstance(self.stream, GraphStream):
            self.stream.observed(message_observation_id(entry.seq), entry.seq)
        else:
            self._observations.add(message_observation_id(entry.seq))
        specs = applied.result if isinstance(applied.result, list) else []
        if specs:
            applied.projection.extend(self.beliefs.evidence_from_statement(specs, entry).projection)

    def _marked_inaccurate(self, entry: Entry, applied: Applied) -> None:
        """An observation an operator marked inaccurate says so on its node (SPEC 3.4, 3.6)."""
        root = _marks_observation(entry)
        if root is not None and self._observation_written(root, entry.seq):
            payload = entry.payload
            applied.projection.node(
                "Observation", root, inaccurate=True, inaccurate_seq=entry.seq, inaccurate_by=entry.by,
                inaccurate_reason=payload.get("reason"),
            )

    def _observation_written(self, observation_id: str, seq: int) -> bool:
        """Was this Observation written before entry `seq` (which is being applied)? A stream read from the graph
        reads it as that entry's own read (prepared beforehand: `prepare`); for an entry the graph holds, whose
        projection is not written again, it reads nothing."""
        stream = self.stream
        if isinstance(stream, GraphStream):
            if seq <= stream.parts.held():
                return False
            with stream.parts.reading({"observations": [observation_id]}, seq):
                return stream.has_observation(observation_id)
        return self.has_observation(observation_id)

    def _answered(self, entry: Entry, applied: Applied) -> None:
        """An answer's knowledge effect (resolve, confirm, retire, a person's fact) in the same entry (SPEC 3.7).

        The answer carries its knowledge sub-operations, planned when it was written; each is
        applied as the knowledge store's own entry at this position, with its cross-domain effects.
        With `knowledge_taken`, the operations are taken as the graph gives them.
        """
        if self.knowledge_taken is not None:
            changes, results = ({}, []) if self._statuses_held(entry.seq) else self._take_knowledge(entry, applied)
            applied.result = {**(applied.result or {}), "changes": changes, "knowledge": results}
            return
        changes: dict[str, tuple[str, str]] = {}
        results = []
        for sub in entry.payload.get("knowledge") or ():
            sub_entry = Entry(seq=entry.seq, op=sub["op"], by=entry.by, at=entry.at, payload=sub["payload"])
            if not self.knowledge.handles(sub_entry.op):
                raise RuntimeError(f"journal entry {entry.seq} carries a non-knowledge effect {sub_entry.op!r}")
            if self.skip and subject_of(sub_entry) in self.skip:
                continue
            summed = self.knowledge.fingerprint_sum()
            done = self.knowledge.apply(sub_entry)
            self._note_statuses(done)
            self._items_gone(sub_entry, done)
            self._kept_for_writes(sub_entry, done, summed)
            applied.projection.extend(done.projection)
            results.append(done.result)
            for item_id, (before, after) in status_changes(done.result).items():
                changes[item_id] = (changes.get(item_id, (before, after))[0], after)
        applied.result = {
            **(applied.result or {}),
            "changes": {i: c for i, c in sorted(changes.items()) if c[0] != c[1]},
            "knowledge": results,
        }

    def present(self, root_kind: str, root_id: str) -> bool:
        """Is this evidence root present? An item: written and not retracted (a replay that skips it
        never wrote it). Other kinds: their own layer keeps them (an inaccurate observation's rows go
        for good, a rejected belief's rows go with it)."""
        if root_kind != "item":
            return True
        status = self._status_of(root_id)
        return status is not None and status != RETRACTED

    def item_status(self, item_id: str) -> str | None:
        """The item's status as its Item node holds it, None for an id never written (KnowledgeState.status)."""
        return self._status_of(item_id)

    def _status_of(self, item_id: str) -> str | None:
        if self.statuses_taken is not None:
            found: str | None = self.statuses_taken.get("item", item_id)
            return found
        return self._item_status.get(item_id)

    def _set_status(self, item_id: str, status: str) -> None:
        if self.statuses_taken is not None:
            self.statuses_taken.keep("item", item_id, status, self.position)
        else:
            self._item_status[item_id] = status

    def _take_knowledge(self, entry: Entry, applied: Applied) -> tuple[dict[str, tuple[str, str]], list[Any]]:
        """Take the entry's knowledge operations as `knowledge_taken` gives them, in turn, into `applied`: each
        one's own changes, the evidence that goes or comes back with the items whose status it changed, and
        its bookkeeping. Returns the status changes of them all (first before, last after) and their results."""
        assert self.knowledge_taken is not None
        changes: dict[str, tuple[str, str]] = {}
        results = []
        for operation in self.knowledge_taken(entry):
            own = self._status_changes(operation)
            applied.projection.extend(operation.projection)
            self._items_gone(entry, Applied(applied.projection, {"changes": own}))
            applied.projection.extend(operation.bookkeeping)
            results.append(operation.result)
            for item_id, (before, after) in own.items():
                changes[item_id] = (changes.get(item_id, (before, after))[0], after)
        return {i: c for i, c in sorted(changes.items()) if c[0] != c[1]}, results

    def _status_changes(self, operation: TakenOperation) -> dict[str, tuple[str, str]]:
        """{item: (before, after)} for each item whose status the operation changes; the statuses it gave are then
        set. An operation applied here says them in its result, as applying it on the whole state does
        (`status_changes`: the rules read every item they decide, so no status is read again for them, a statement
        a write). One the graph holds gives only its statuses: they are compared with those read (an item written
        first has no status before: not a change, as KnowledgeState reports it)."""
        if operation.result is not None:
            for item_id, status in sorted(operation.statuses.items()):
                self._set_status(item_id, status)
            return status_changes(operation.result)
        changes = {}
        for item_id, status in sorted(operation.statuses.items()):
            before = self._status_of(item_id)
            if before is not None and before != status:
                changes[item_id] = (before, status)
            self._set_status(item_id, status)
        return changes

    def _note_statuses(self, applied: Applied) -> None:
        for item_id, status in item_statuses(applied.projection).items():
            self._set_status(item_id, status)

    def _late_rows(self, entry: Entry, applied: Applied) -> None:
        """One rule for a row's liveness (SPEC 3.4): a row written on an item that is not present (in a
        replay without that item, or after it fell) is not live from the start, as if it had gone with
        the item; a live write refuses such a row before it is journalled (require_roots)."""
        result = applied.result if isinstance(applied.result, dict) else {}
        new_rows = [self.beliefs.rows[r] for r in result.get("evidence", ()) if r in self.beliefs.rows]
        if not new_rows and isinstance(applied.result, list):  # a statement: its specs name their rows
            new_rows = [self.beliefs.rows[s["evidence"]] for s in applied.result
                        if isinstance(s, dict) and s.get("evidence") in self.beliefs.rows]
        gone = sorted({r for row in new_rows if row.root_kind == "item" and not row.retracted
                       for r in row.root_ids if not self.present("item", r)})
        if gone:
            applied.projection.extend(self.beliefs.roots_gone("item", gone, entry).projection)

    def _kept_for_writes(self, entry: Entry, applied: Applied, summed: tuple[int, int]) -> None:
        """What the knowledge entry changed of the parts of the knowledge state that are not its items' own, kept in
        the graph so a write that holds no copy of the store reads them there (`kept_for_writes`; `summed`: the
        running fingerprint's sum before the entry)."""
        kept_for_writes(applied.projection, entry.seq, self.knowledge.scheduled, self.knowledge.expiry.changes,
                        summed, self.knowledge.fingerprint_sum())

    def _items_gone(self, entry: Entry, applied: Applied) -> None:
        """Evidence resting on an item that became retracted goes with it (SPEC 3.4); evidence that went
        with an item is live again when the item is back and every other root it cites is present."""
        changes = status_changes(applied.result)
        gone = sorted(i for i, (before, after) in changes.items() if after == RETRACTED != before)
        if gone:
            applied.projection.extend(self.beliefs.roots_gone("item", gone, entry).projection)
        back = sorted(i for i, (before, after) in changes.items() if before == RETRACTED != after)
        if back:
            applied.projection.extend(self.beliefs.roots_back("item", back, entry, self.present).projection)

    def fingerprint(self) -> str:
        """What the store believes: the knowledge fingerprint and the belief fingerprint, combined."""
        return combined_fingerprint(self.knowledge.fingerprint(), self.beliefs_fingerprint())

    def fingerprints(self) -> dict[str, Any]:
        """The whole store's fingerprint, its knowledge and belief parts, and the journal position."""
        return {"store": self.fingerprint(), "knowledge": self.knowledge.fingerprint(),
                "beliefs": self.beliefs_fingerprint(), "position": self.position}

    def beliefs_fingerprint(self) -> str:
        return self.beliefs.running_fingerprint.value()


class WithKnowledge:
    """A store state as its planners read it, with another knowledge state in place of its own (a scratch state
    of what they read of the graph: Service.plan_on_store); everything else is the store state's."""

    def __init__(self, store: StoreState, knowledge: KnowledgeState) -> None:
        self._store, self.knowledge = store, knowledge

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def item_statuses(projection: Projection) -> dict[str, str]:
    """The status a knowledge operation's projection gives each Item node it writes. Every item it re-decides
    to another verdict, or writes first, is materialised with its status (KnowledgeState._recompute), so these
    are every status it changed."""
    return {node.id: node.props["status"] for node in projection.nodes
            if node.label == "Item" and "status" in node.props}


def kept_for_writes(projection: Projection, seq: int, scheduled: Mapping[str, int | None],
                    expiry_changes: Mapping[tuple[str, int], bool], before: tuple[int, int],
                    after: tuple[int, int]) -> None:
    """Write what the knowledge operation at `seq` changed of the parts of the knowledge state that are not its
    items' own (docs/stateless-path.md): each unit's done time it changed on its Unit node (`scheduled`; None
    removes it), each (item, time) pair the expiry queue took in or gave up on its Due node (`queued_at`,
    `taken_at`: the positions that did), and the running fingerprint's (digest sum, count), moved from `before`
    to `after`, on the knowledge Fingerprint node (`kept_fingerprint`)."""
    for unit, done_time in sorted(scheduled.items()):
        projection.node("Unit", unit, done_time=done_time)
    for (item_id, expires), queued in sorted(expiry_changes.items()):
        props = {"item": item_id, "expires": expires, "queued_at": seq} if queued else {"taken_at": seq}
        projection.node("Due", due_id(item_id, expires), **props)
    kept_fingerprint(projection, KNOWLEDGE_FINGERPRINT, before, after, seq)


def _marks_observation(entry: Entry) -> str | None:
    """The observation a belief correction marks inaccurate, if it is one that does."""
    payload = entry.payload
    root = payload.get("root_id")
    if entry.op != "belief.correct" or payload.get("kind") != "inaccurate" or payload.get("root_kind") != "observation":
        return None
    return root if isinstance(root, str) else None


def kept_fingerprint(projection: Projection, fingerprint_id: str, before: tuple[int, int], after: tuple[int, int],
                     seq: int) -> None:
    """Write a running fingerprint's (digest sum, count) on its Fingerprint node (`total` in hex, `count`, and
    `seq`, the position that last changed it) when the entry at `seq` changed it from `before` to `after`."""
    if after != before:
        total, count = after
        projection.node("Fingerprint", fingerprint_id, total=format(total, "064x"), count=count, seq=seq)


def due_id(item_id: str, expires: int) -> str:
    """The id of the Due node of an item queued at a store-clock time."""
    return f"{item_id}@{expires}"


def status_changes(result: Any) -> dict[str, tuple[str, str]]:
    """The {id: (before, after)} a knowledge entry's result reports (add, tick and answers nest them)."""
    changes = result if isinstance(result, dict) else {}
    if isinstance(changes.get("changes"), dict):
        changes = changes["changes"]
    return {i: (c[0], c[1]) for i, c in changes.items() if isinstance(c, (list, tuple)) and len(c) == 2}


def combined_fingerprint(knowledge: str, beliefs: str) -> str:
    """One hash over the two parts' fingerprints."""
    return hashlib.sha256(f"knowledge:{knowledge}\nbeliefs:{beliefs}".encode()).hexdigest()


def replay(entries: Iterable[Entry], upto: int | None = None, skip: Iterable[str] = ()) -> StoreState:
    """The state a journal gives, applied from nothing (the reference the projection is checked against).

    `upto`: only the entries up to that position; `skip`: item ids whose own knowledge entries are
    left out, as if never written (see graph_service.knowledge.replay.rebuild).
    """
    skipped = frozenset(skip)
    state = StoreState()
    state.skip = skipped
    for entry in entries:
        if upto is not None and entry.seq > upto:
            break
        if skipped and state.knowledge.handles(entry.op) and subject_of(entry) in skipped:
            state.knowledge.advance(entry.seq)
            state.position = entry.seq
            continue
        state.apply(entry)
    return state
