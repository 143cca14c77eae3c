"""The belief layer as the graph gives it (StoreState's `beliefs_taken`), so that the service applies and plans
belief writes without holding the layer: an entry whose projection the graph holds changed the layer there and
nothing is applied for it (beliefs.held); one it does not hold yet is applied on a scratch state that reads what
its rules touch of the graph as of the entry before it (beliefs.partial_write over
from_graph.belief_write_parts); where the graph does not hold the entry before it either (a bulk load's batch in
flight, a projection that failed), on the scratch state the entries since the last position it held were applied
on in turn, which is the layer as of the last of them (a part none of them touched reads as the graph held it)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from graph_service.beliefs.corrections import DO_NOT_INFER_JACCARD
from graph_service.beliefs.partial_write import similar_key, write_state
from graph_service.beliefs.state import BeliefState
from graph_service.beliefs.text import signature
from graph_service.digest_sum import moved_by
from graph_service.domain import Applied, Draft
from graph_service.fingerprint_as_of import kept_sum_upto
from graph_service.from_graph.belief_write_parts import BeliefWritePartsFromGraph
from graph_service.journal.chain import Entry
from graph_service.partial_reads import Fetched, Reader, read_ahead
from graph_service.state import BELIEFS_FINGERPRINT
from graph_service.statements import OP_SAY
from graph_service.statements.state import evidence_specs
from graph_service.storage.port import GraphPort

RUN_ENTRIES = 4_000
"""A run ahead of the graph (a bulk load) starts again from what the graph holds by then once it has applied this
many entries: what it read and what it changed stay bounded (as from_graph.knowledge.RUN_ENTRIES)."""


class _Answers:
    """What a question asked while an entry was applied answered then (StoreState.present), kept: the entry made
    again on a fresh layer asks the same and must hear the same, whatever was applied since."""

    def __init__(self, ask: Callable[[str, str], bool]) -> None:
        self.ask, self.given = ask, {}

    def __call__(self, root_kind: str, root_id: str) -> bool:
        key = (root_kind, root_id)
        if key not in self.given:
            self.given[key] = self.ask(root_kind, root_id)
        return self.given[key]


class RecordingLayer(BeliefState):
    """A scratch layer that keeps each call a store state makes on it (an entry's own application and the effects
    of other domains' entries), with its arguments as they were then, so that a run started again makes them again,
    in order, on a fresh layer."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[int, str, tuple[Any, ...]]] = []
        self.reader: Reader | None = None  # what it reads through, and from (set by BeliefsFromGraph._fresh)
        self.source: BeliefWritePartsFromGraph | None = None

    def apply(self, entry: Entry) -> Applied:
        self.calls.append((entry.seq, "apply", (entry,)))
        return super().apply(entry)

    def roots_gone(self, root_kind: str, root_ids: Iterable[str], entry: Entry) -> Applied:
        ids = list(root_ids)
        self.calls.append((entry.seq, "roots_gone", (root_kind, ids, entry)))
        return super().roots_gone(root_kind, ids, entry)

    def roots_back(self, root_kind: str, root_ids: Iterable[str], entry: Entry,
                   present: Callable[[str, str], bool]) -> Applied:
        ids, answers = list(root_ids), _Answers(present)
        self.calls.append((entry.seq, "roots_back", (root_kind, ids, entry, answers)))
        return super().roots_back(root_kind, ids, entry, answers)

    def evidence_from_statement(self, specs: Iterable[dict[str, Any]], entry: Entry) -> Applied:
        given = list(specs)
        self.calls.append((entry.seq, "evidence_from_statement", (copy.deepcopy(given), entry)))
        return super().evidence_from_statement(given, entry)

    def make_again(self, calls: Iterable[tuple[int, str, tuple[Any, ...]]]) -> None:
        """Make these calls (another layer's) on this one, in order, as they were made there."""
        for _, name, args in calls:
            if name == "evidence_from_statement":  # the specs are annotated as they are applied: a copy each time
                args = (copy.deepcopy(args[0]), args[1])
            getattr(self, name)(*args)


class BeliefsFromGraph:
    """`beliefs_taken` for a state fed entries in journal order. `held()`: the last position whose projection the
    graph holds, with every one before it."""

    def __init__(self, graph: GraphPort, held: Callable[[], int]) -> None:
        self.graph, self.held = graph, held
        self.applied = 0  # entries applied on what they read (the others the graph held)
        self._source: BeliefWritePartsFromGraph | None = None
        self._state: BeliefState | None = None  # the scratch state of the entries since the source's position
        self._last = 0  # the last entry applied on it
        self._since = 0  # the position the graph held when the state was made: what it reads is as of it
        self._base: tuple[int, int] | None = None  # the layer's running sum there, once read
        self._prepared_base: tuple[int, tuple[int, int]] | None = None  # (position, the sum there), read ahead
        # (position, the layer's running sum after the entry there) for the last entry applied here that moved it:
        # the sum as of the head with no statement, when that entry is the head (`sum_as_of`).
        self._sum_after: tuple[int, tuple[int, int]] | None = None
        self._run_applied = 0  # entries applied on the state since it was made (those made again included)
        self.restarts = 0  # runs started again from what the graph held

    def reset(self) -> None:
        """Forget the scratch state (a replay from the start follows)."""
        self._state, self._last, self._base, self._sum_after = None, 0, None, None

    def takes(self, seq: int) -> bool:
        """Does the graph hold what entry `seq` did to the layer (nothing to apply here)?"""
        return seq <= self.held()

    def state_for(self, seq: int) -> BeliefState:
        """The state entry `seq` applies on: a fresh one reading the graph as of the entry before it when the graph
        holds that, else the one the entries since the last position it held were applied on. RuntimeError when
        there is neither (an entry was applied elsewhere, or failed)."""
        if self.held() >= seq - 1:
            prepared = self._prepared_base
            base = prepared[1] if prepared is not None and prepared[0] == seq - 1 else None
            self._state, self._since, self._base, self._run_applied = self._fresh(seq - 1), seq - 1, base, 0
        elif self._state is None or self._last != seq - 1:
            raise self._no_state_at(seq - 1)
        else:
            self._go_on(self._state)
        self._last = seq - 1  # until the entry is applied whole: a failure midway leaves no state to go on from
        state, self._state = self._state, None
        return state

    def _go_on(self, run: BeliefState) -> None:
        """A run goes on past what the graph holds: it forgets the calls of the entries the graph holds by now, and
        past RUN_ENTRIES, once the graph holds more of it, starts again from there, making again on a fresh layer
        the calls of the entries past it (a few batches of a load) so that what it holds stays bounded."""
        held = self.held()
        assert isinstance(run, RecordingLayer)
        if run.calls and run.calls[0][0] <= held:
            run.calls = [call for call in run.calls if call[0] > held]
        if self._run_applied >= RUN_ENTRIES and held > self._since:
            again = self._fresh(held)
            again.make_again(run.calls)
            self._state, self._since, self._base = again, held, None
            self._run_applied = len({call[0] for call in run.calls})
            self.restarts += 1

    def applied_on(self, seq: int, state: BeliefState) -> None:
        """Entry `seq` was applied whole on `state` (from `state_for`): the next entry may go on from it. What its
        reader and source kept of what they read is forgotten: the state holds it, and reads no key twice, so a run
        holds one copy of what it read, not three."""
        assert isinstance(state, RecordingLayer) and state.reader is not None and state.source is not None
        state.reader.fetched.clear()
        state.source.forget()
        self._state, self._last = state, seq
        self.applied += 1
        self._run_applied += 1

    def sums(self, seq: int, before: tuple[int, int],
             after: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
        """The layer's running sums before and after entry `seq`, whose scratch state moved its own sum (what the
        entries on it changed, from nothing) from `before` to `after`: the store's sum at the state's position,
        read once (one lookup), plus each. The sum after it is kept for `sum_as_of`."""
        if self._base is None:
            self._base = kept_sum_upto(self.graph, BELIEFS_FINGERPRINT, self._since)
        store_before, store_after = moved_by(self._base, before), moved_by(self._base, after)
        self._sum_after = seq, store_after
        return store_before, store_after

    def sum_as_of(self, upto: int) -> tuple[int, int]:
        """The layer's running sum as of position `upto`: known with no statement when the entry there was applied
        here and moved it (`sums`); else read (one lookup, or the node's history when a later entry moved it).
        Only that very position: an entry after it that this process took as the graph holds it, without applying
        it, may have moved the sum."""
        known = self._sum_after
        return known[1] if known is not None and known[0] == upto else kept_sum_upto(self.graph, BELIEFS_FINGERPRINT,
                                                                                      upto)

    def plan(self, op: str, payload: dict[str, Any], head: int) -> Draft:
        """A belief request's draft (or its refusal) on the layer as of `head`, the journal's head: on what it reads
        of the graph, or, while the graph is behind the head (a bulk load's batch in flight), on the scratch state
        the entries ahead of it were applied on."""
        if self.held() >= head:
            return self._fresh(head).plan(op, payload)
        if self._state is None or self._last != head:
            raise self._no_state_at(head)
        return self._state.plan(op, payload)

    def read_ahead(self, entries: Sequence[Entry]) -> None:
        """A bulk load about to apply these entries in turn says so first: the near matches of the propositions the
        creations among them make, which the run ahead of the graph does not hold yet, are read in one statement,
        where each would cost one as it is asked for. A hint: it changes nothing a run gives (what no entry of the
        run has touched reads the same at any time of it); nothing is read without a run reaching these entries."""
        run = self._state
        if run is None or not entries or self._last != entries[0].seq - 1 or self.held() >= self._last:
            return
        words = [signature(e.payload["proposition"]).tokens for e in entries
                 if e.op == "belief.create" and isinstance(e.payload.get("proposition"), str)]
        read_ahead(run._pattern_index.candidates, [similar_key(w, DO_NOT_INFER_JACCARD) for w in words if w])

    def prepare(self, entry: Entry) -> None:
        """Read what applying this landed entry (a belief write's, or a statement's, whose claims become evidence) on
        the graph as of the entry before it reads, now (a writer's step
        off the event loop: Journal.write_steps), by applying it on a state of its own that is then dropped: its
        application proper reads it again from what is kept (`_fresh`); and the layer's running sum there, which
        the application reads when the entry moves it. Changes no state."""
        if self.held() >= entry.seq - 1:
            fresh = self._fresh(entry.seq - 1)
            if entry.op == OP_SAY:  # a statement's claims become evidence: its specs follow from the entry alone
                fresh.evidence_from_statement(evidence_specs(entry), entry)
            else:
                fresh.apply(entry)
            upto = entry.seq - 1
            self._prepared_base = upto, self.sum_as_of(upto)

    def _no_state_at(self, position: int) -> RuntimeError:
        return RuntimeError(f"no belief state as of position {position}: the graph holds the projections only up to "
                            f"{self.held()}")

    def _fresh(self, upto: int) -> RecordingLayer:
        # One source a position: a write's plan, what its preparation read and its application read as of the same
        # one (its head), so the application reads nothing they read. What the graph held at a position never
        # changes, and a state holds copies of what it was given (partial_write), so what is kept stays true.
        source = self._source
        if source is None or source.upto != upto:
            source = self._source = BeliefWritePartsFromGraph(self.graph, upto)
        reader = Reader(source.answer, Fetched(), source.answer_many)
        fresh = write_state(reader, layer=RecordingLayer)
        assert isinstance(fresh, RecordingLayer)
        fresh.reader, fresh.source = reader, source
        return fresh

