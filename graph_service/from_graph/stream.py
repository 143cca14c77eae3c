"""The stream's and the statements' state as the graph holds it (StoreState's `stream_taken`), so that the service
plans and applies their writes without holding every observer, row and conversation in memory.

What their rules read is a few keyed parts (stream.state, statements.state): an observer, its view and last
boundary, whether it has a row of a (kind, subject) pair, who spoke last in a conversation, whether an observation
was written. Each is read by its index (`cypher/stream_parts.cypher`), those a plan or an application needs in one
statement, with what the entries the graph does not hold yet changed (from_graph.keyed_parts says why that is
exact). What applying an entry gives comes from the entry alone (`stream.state.applied_result`,
`statements.state.evidence_specs`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.from_graph.keyed_parts import KeyedParts, Needs
from graph_service.journal.chain import Entry
from graph_service.projection import Projection
from graph_service.statements.state import OP_SAY, StatementState, conversation_id, evidence_specs
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


class StreamParts(KeyedParts):
    """The stream's and the statements' parts (KeyedParts), read by `cypher/stream_parts.cypher`."""

    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {
        "observers": ("observer", "boundary"), "pairs": ("first",), "conversations": ("conversation",),
        "observations": ("observation",)}

    def _fetch(self, wanted: Needs) -> dict[tuple[str, str], Any]:
        rows = self.graph.run("stream_parts", {"asked": {need: wanted.get(need, []) for need in self.NEEDS}})
        found: dict[tuple[str, str], Any] = {}
        for row in rows:
            part, key, value = row["part"], row["key"], row["value"]
            if part == "observer":
                found[("observer", key)] = Observer(key, wordless=bool(value.get("wordless")),
                                                    declared=bool(value.get("declared")))
                tick = value.get("boundary_tick")
                found[("boundary", key)] = None if tick is None else (frozenset(value.get("view") or ()), tick)
            else:
                found[(part, key)] = value
        return found


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
        with self.parts.reading(request_needs(op, payload, self.table)):
            return super().plan(op, payload)

    def apply(self, entry: Entry) -> Applied:
        if entry.seq <= self.parts.held():  # the graph holds what it did: only what it gives
            return Applied(Projection(), applied_result(entry, self.table))
        self._seq = entry.seq
        with self.parts.reading(entry_needs(entry, self.table), entry.seq):
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
        self.parts, self.table = stream.parts, stream.table  # the stream's weight table: what its rows are read by
        self._seq = 0

    def last_speaker(self, conversation: str) -> str | None:
        found: str | None = self.parts.get("conversation", conversation)
        return found

    def _keep_speaker(self, conversation: str, speaker: str) -> None:
        self.parts.keep("conversation", conversation, speaker, self._seq)

    def plan(self, op: str, payload: Mapping[str, Any]) -> Draft:
        with self.parts.reading(request_needs(op, payload, self.table)):
            return super().plan(op, payload)

    def apply(self, entry: Entry) -> Applied:
        if entry.op == OP_SAY and entry.seq <= self.parts.held():
            return Applied(Projection(), evidence_specs(entry))
        self._seq = entry.seq
        with self.parts.reading(entry_needs(entry, self.table), entry.seq):
            return super().apply(entry)

    def prepare(self, entry: Entry) -> None:
        prepare(self.parts, entry, self.table)


def prepare(parts: KeyedParts, entry: Entry, table: WeightTable) -> None:
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
