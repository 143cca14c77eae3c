"""The stream's and the statements' state as the graph holds it (StoreState's `stream_taken`), so that the service
plans and applies their writes without holding every observer, row and conversation in memory.

What their rules read is a few keyed parts (stream.state, statements.state): an observer, its view and last
boundary, whether it has a row of a (kind, subject) pair, who spoke last in a conversation, whether an observation
was written. Each is read by its index (`cypher/stream_parts.cypher`), those a plan or an application needs in one
statement. What the entries the graph does not hold yet changed (this process's write before its projection lands,
a bulk load's batches in flight) is kept here, part by part, with the position that changed it, until the graph
holds that position: so a part reads as of the last entry applied without folding any history.

Why reading the graph as it is now is exact: a part no entry past the graph's position changed has the same value
at that position and at the entry being applied (the others are kept here). The graph can be past an entry only
when another writer projected it; then this process's projection of it is refused by the projected position's
guard, and what its application gives (`stream.state.applied_result`, `statements.state.evidence_specs`) comes
from the entry alone. A plan read past the journal's head is caught by the append's compare-and-set, and made
again."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.journal.chain import Entry
from graph_service.projection import Projection
from graph_service.statements.state import OP_SAY, StatementState, conversation_id, evidence_specs
from graph_service.storage.port import GraphPort
from graph_service.stream.boundary import check_transfers, check_view
from graph_service.stream.rows import Observation, check_actor, check_kind, check_subject
from graph_service.stream.state import (
    OP_DECLARE,
    OP_OBSERVE,
    OP_PRESENCE,
    Observer,
    StreamState,
    applied_result,
    boundary_pairs,
    first_key,
    rows_written,
)
from graph_service.stream.weights import DEFAULT_TABLE, WeightTable

Needs = dict[str, list[str]]
"""What a plan or an application reads: keys of the parts `stream_parts` reads ("observers", "pairs",
"conversations", "observations")."""

_PARTS_OF = {"observer": "observers", "boundary": "observers", "first": "pairs", "conversation": "conversations",
             "observation": "observations"}


class StreamParts:
    """The parts as of the last entry applied: what the entries the graph does not hold yet changed, else what the
    graph holds (read in one statement a plan or an application, kept for it alone: each thread reads its own)."""

    def __init__(self, graph: GraphPort, held: Callable[[], int]) -> None:
        self.graph, self.held = graph, held
        self._ahead: dict[tuple[str, str], tuple[int, Any]] = {}
        self._ahead_order: deque[tuple[int, tuple[str, str]]] = deque()
        self._prepared: dict[int, dict[tuple[str, str], Any]] = {}
        # What a bulk load read ahead for a window of entries: a key an entry changes leaves it (`keep`), so what
        # is left is as the graph held it and no entry since changed it.
        self._window: dict[tuple[str, str], Any] = {}
        self._local = threading.local()
        self.reads = 0  # statements run

    def reset(self) -> None:
        """Forget what entries changed (a replay from the start follows)."""
        self._ahead.clear()
        self._ahead_order.clear()
        self._prepared.clear()
        self._window = {}

    def begin(self, needs: Needs, seq: int | None = None) -> None:
        """A plan or an application starts in this thread: what earlier ones read is forgotten (the graph may have
        moved since), what was read for entry `seq` beforehand (`prepare`) is taken, and what `needs` names and is
        not known yet is read in one statement."""
        found = self._local.found = self._prepared.pop(seq, {}) if seq is not None else {}
        window = self._window
        if window:
            for need, keys in needs.items():
                for part in [p for p, n in _PARTS_OF.items() if n == need]:
                    found.update({(part, k): window[(part, k)] for k in keys if (part, k) in window})
        self._read(needs, found)

    def prepare(self, seq: int, needs: Needs) -> None:
        """Read what applying entry `seq` will read, now (off the event loop), for its application to take."""
        found: dict[tuple[str, str], Any] = {}
        self._read(needs, found)
        self._prepared = {s: f for s, f in self._prepared.items() if s > self.held()}
        self._prepared[seq] = found

    def read_ahead(self, needs: Iterable[Needs]) -> None:
        """A bulk load about to apply a window of entries reads what they read in one statement, not one an entry
        (a hint: what an application reads is the same either way)."""
        merged: Needs = {}
        for one in needs:
            for need, keys in one.items():
                merged.setdefault(need, []).extend(keys)
        window: dict[tuple[str, str], Any] = {}
        self._read(merged, window)
        self._window = window

    def get(self, part: str, key: str) -> Any:
        """The part at `key` as of the last entry applied (None: nothing there)."""
        ahead = self._ahead.get((part, key))
        if ahead is not None and ahead[0] > self.held():
            return ahead[1]
        found: dict[tuple[str, str], Any] | None = getattr(self._local, "found", None)
        if found is None:
            found = self._local.found = {}
        if (part, key) not in found:
            if (part, key) in self._window:
                return self._window[(part, key)]
            self._read({_PARTS_OF[part]: [key]}, found)
        return found[(part, key)]

    def keep(self, part: str, key: str, value: Any, seq: int) -> None:
        """Entry `seq` changed the part at `key` to `value`: kept until the graph holds that entry."""
        self._ahead[(part, key)] = (seq, value)
        self._ahead_order.append((seq, (part, key)))
        self._window.pop((part, key), None)
        self._forget_held()

    def _forget_held(self) -> None:
        held = self.held()
        order = self._ahead_order
        while order and order[0][0] <= held:
            seq, key = order.popleft()
            if self._ahead.get(key, (None,))[0] == seq:
                del self._ahead[key]

    @property
    def ahead(self) -> int:
        """How many parts are kept for entries the graph does not hold yet."""
        self._forget_held()
        return len(self._ahead)

    def _read(self, needs: Needs, found: dict[tuple[str, str], Any]) -> None:
        held = self.held()

        def wanted(part: str, keys: Iterable[str]) -> list[str]:
            return [k for k in dict.fromkeys(keys) if (part, k) not in found
                    and not ((part, k) in self._ahead and self._ahead[(part, k)][0] > held)]

        params = {
            "observers": wanted("observer", needs.get("observers", ())),
            "pairs": wanted("first", needs.get("pairs", ())),
            "conversations": wanted("conversation", needs.get("conversations", ())),
            "observations": wanted("observation", needs.get("observations", ())),
        }
        if not any(params.values()):
            return
        rows = self.graph.run("stream_parts", params)
        self.reads += 1
        for name in params["observers"]:
            found[("observer", name)] = found[("boundary", name)] = None
        for part, keys in (("first", params["pairs"]), ("conversation", params["conversations"]),
                           ("observation", params["observations"])):
            for key in keys:
                found[(part, key)] = None
        for row in rows:
            part, key, value = row["part"], row["key"], row["value"]
            if part == "observer":
                found[("observer", key)] = Observer(key, wordless=bool(value.get("wordless")),
                                                    declared=bool(value.get("declared")))
                tick = value.get("boundary_tick")
                found[("boundary", key)] = None if tick is None else (frozenset(value.get("view") or ()), tick)
            else:
                found[(part, key)] = value


class GraphStream(StreamState):
    """The stream's rules over `StreamParts`: it holds no observer, row or view of its own. Its whole reads (every
    observer, every row, recall) are not for it: the service reads those from the graph."""

    def __init__(self, parts: StreamParts, table: WeightTable = DEFAULT_TABLE) -> None:
        super().__init__(table)
        self.parts = parts
        self._seq = 0  # the entry being applied

    def observer(self, observer: str) -> Observer | None:
        found: Observer | None = self.parts.get("observer", observer)
        return found

    def in_view(self, observer: str) -> frozenset[str]:
        boundary = self.parts.get("boundary", observer)
        return frozenset() if boundary is None else boundary[0]

    def last_boundary(self, observer: str) -> int | None:
        boundary = self.parts.get("boundary", observer)
        return None if boundary is None else int(boundary[1])

    def firsts_among(self, observer: str, pairs: Iterable[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        return frozenset(p for p in pairs if self.parts.get("first", first_key(observer, *p)))

    def _keep_observer(self, observer: Observer) -> None:
        self.parts.keep("observer", observer.id, observer, self._seq)

    def _keep_boundary(self, observer: str, view: frozenset[str], tick: int) -> None:
        self.parts.keep("boundary", observer, (view, tick), self._seq)

    def _keep_row(self, obs: Observation) -> None:
        self.parts.keep("first", first_key(obs.observer, obs.kind, obs.subject), True, self._seq)
        self.parts.keep("observation", obs.id, True, self._seq)

    def has_observation(self, observation_id: str) -> bool:
        """Was an Observation with this id written (a stream row or a message), as of the last entry applied?"""
        return bool(self.parts.get("observation", observation_id))

    def observed(self, observation_id: str, seq: int) -> None:
        """Entry `seq` wrote this Observation (a statement's message)."""
        self.parts.keep("observation", observation_id, True, seq)

    def plan(self, op: str, payload: Mapping[str, Any]) -> Draft:
        self.parts.begin(request_needs(op, payload, self.table))
        return super().plan(op, payload)

    def apply(self, entry: Entry) -> Applied:
        if entry.seq <= self.parts.held():  # the graph holds what it did: only what it gives
            return Applied(Projection(), applied_result(entry, self.table))
        self.parts.begin(entry_needs(entry, self.table), entry.seq)
        self._seq = entry.seq
        return super().apply(entry)

    def prepare(self, entry: Entry) -> None:
        """Read what applying this landed entry reads (see StreamParts.prepare)."""
        prepare(self.parts, entry, self.table)

    def read_ahead(self, entries: Iterable[Entry]) -> None:
        """A bulk load about to apply these entries says so first: what their applications read of the stream and
        the statements is read in one statement (StreamParts.read_ahead)."""
        needs = []
        for entry in entries:
            try:
                needs.append(entry_needs(entry, self.table))
            except UserError:
                continue  # its application refuses it
        self.parts.read_ahead(needs)

    def observers(self) -> tuple[Observer, ...]:
        raise RuntimeError("this service holds no stream state: its observers are read from the graph")

    def observations(self, observer: str | None = None) -> tuple[Observation, ...]:
        raise RuntimeError("this service holds no stream state: its rows are read from the graph")


class GraphStatements(StatementState):
    """The statements' rules over `StreamParts` (who spoke last in a conversation), with the stream's for who is
    wordless."""

    def __init__(self, stream: GraphStream) -> None:
        super().__init__(stream)
        self.parts = stream.parts
        self._seq = 0

    def last_speaker(self, conversation: str) -> str | None:
        found: str | None = self.parts.get("conversation", conversation)
        return found

    def _keep_speaker(self, conversation: str, speaker: str) -> None:
        self.parts.keep("conversation", conversation, speaker, self._seq)

    def plan(self, op: str, payload: Mapping[str, Any]) -> Draft:
        self.parts.begin(request_needs(op, payload, DEFAULT_TABLE))
        return super().plan(op, payload)

    def apply(self, entry: Entry) -> Applied:
        if entry.op == OP_SAY and entry.seq <= self.parts.held():
            return Applied(Projection(), evidence_specs(entry))
        self.parts.begin(entry_needs(entry, DEFAULT_TABLE), entry.seq)
        self._seq = entry.seq
        return super().apply(entry)

    def prepare(self, entry: Entry) -> None:
        prepare(self.parts, entry, DEFAULT_TABLE)


def prepare(parts: StreamParts, entry: Entry, table: WeightTable) -> None:
    """Read beforehand what applying this entry reads; nothing for a malformed one (its application refuses it)."""
    try:
        needs = entry_needs(entry, table)
    except UserError:
        return
    parts.prepare(entry.seq, needs)


def _actor(value: Any) -> list[str]:
    try:
        return [check_actor(value, "observer")]
    except UserError:
        return []  # the plan refuses it, naming the field


def request_needs(op: str, payload: Mapping[str, Any], table: WeightTable) -> Needs:
    """What planning this request reads, as far as its payload is well formed (what is not, the plan refuses)."""
    if not isinstance(payload, Mapping):
        return {}
    if op == OP_SAY:
        return {"observers": _actor(payload.get("speaker")) + _actor(payload.get("to"))}
    names = _actor(payload.get("observer"))
    needs: Needs = {"observers": names}
    if not names:
        return needs
    try:
        if op == OP_OBSERVE:
            pairs = [(check_kind(payload.get("kind"), table), check_subject(payload.get("subject")))]
        elif op == OP_PRESENCE:
            pairs = boundary_pairs(table, check_view(payload.get("in_view")),
                                   check_transfers(payload.get("transfers", ()), table))
        else:
            pairs = []
    except UserError:
        pairs = []
    needs["pairs"] = [first_key(names[0], kind, subject) for kind, subject in pairs]
    return needs


def entry_needs(entry: Entry, table: WeightTable) -> Needs:
    """What applying this entry reads (UserError for a malformed one, which its application refuses too)."""
    if entry.op == OP_SAY:
        return {"conversations": [conversation_id(entry.payload.get("to"))]}
    if entry.op == OP_DECLARE:
        return {"observers": [check_actor(entry.payload.get("observer"), "observer")]}
    if entry.op in (OP_OBSERVE, OP_PRESENCE):
        name, written = rows_written(entry, table)
        return {"observers": [name], "pairs": [first_key(name, o.kind, o.subject) for o in written]}
    return {}
