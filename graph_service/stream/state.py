"""The stream domain: observers and their append-only observations, as a pure journal state machine.

Operations (one client request = one journal entry):
  observer.declare  {"observer": str, "wordless": bool}
  stream.observe    {"observer": str, "tick": int, "rows": [row]}            one row
  stream.presence   {"observer": str, "tick": int, "in_view": [subject],
                     "transfers": [{"kind", "subject", "magnitude"}], "rows": [row]}
where row = {"observer", "tick", "kind", "subject", "magnitude", "weight", "first"}.

Planning computes the rows (with their weights) against the current state without changing it,
so the journal records exactly what was written; `apply` writes them. A presence boundary with
nothing coming into view is still an entry: it records the new view (so a subject that left can
be seen coming back), and its apply writes no rows.

What the rules read and change of the state goes through a few parts (an observer, its view and last
boundary, which (kind, subject) pairs it has a row of), so that a state that holds none of them and reads
each from the graph (graph_service.from_graph.stream) runs the same rules. The graph keeps each of them: the
observer's Actor node (`observer`, `declared`, `wordless`, `view`, `boundary_tick`) and `first_of` on the
Observation node of an observer's first row of a pair (`first_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from graph_service.domain import Applied, Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import Entry, canonical_json
from graph_service.projection import Projection
from graph_service.stream.boundary import (
    PlannedRow,
    Transfer,
    boundary_rows,
    check_transfers,
    check_view,
    subject_order,
)
from graph_service.stream.recall import (
    DEFAULT_HALF_LIFE,
    DEFAULT_K,
    DEFAULT_W_IMPORTANCE,
    DEFAULT_W_RECENCY,
    Recalled,
    recall,
)
from graph_service.stream.rows import (
    Observation,
    check_actor,
    check_kind,
    check_magnitude,
    check_subject,
    check_tick,
    check_weight,
    observation_from_row,
)
from graph_service.stream.weights import DEFAULT_TABLE, WeightTable

OP_DECLARE: Final = "observer.declare"
OP_OBSERVE: Final = "stream.observe"
OP_PRESENCE: Final = "stream.presence"
OPS: Final = (OP_DECLARE, OP_OBSERVE, OP_PRESENCE)


@dataclass(frozen=True, slots=True)
class Observer:
    """An actor that keeps a stream. `declared` is False for one created by its first row."""

    id: str
    wordless: bool = False
    declared: bool = True


class StreamState:
    """Observers, their streams and what each has in view; deterministic in the entries applied.

    `require_declared` refuses rows from an observer nobody declared. `every_tick` is the
    counterfactual boundary rule (a presence row at every boundary for everything in view),
    kept only so the flood it causes can be measured with the same code.
    """

    def __init__(
        self, table: WeightTable = DEFAULT_TABLE, *, require_declared: bool = True, every_tick: bool = False
    ) -> None:
        self.table = table
        self.require_declared = require_declared
        self.every_tick = every_tick
        self._observers: dict[str, Observer] = {}
        self._rows: list[Observation] = []
        self._view: dict[str, frozenset[str]] = {}
        self._last_boundary: dict[str, int] = {}
        self._firsts: dict[str, set[tuple[str, str]]] = {}

    # ---- the parts the rules read and change (a state reading them from the graph overrides these) ------

    def observer(self, observer: str) -> Observer | None:
        """The observer of this name (spelt as actors are), None when none keeps a stream."""
        return self._observers.get(observer)

    def in_view(self, observer: str) -> frozenset[str]:
        """What the observer had in view at its last boundary."""
        return self._view.get(observer, frozenset())

    def last_boundary(self, observer: str) -> int | None:
        """The tick of the observer's last boundary (None before its first)."""
        return self._last_boundary.get(observer)

    def firsts_among(self, observer: str, pairs: Iterable[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """Those of these (kind, subject) pairs the observer has a row of."""
        had = self._firsts.get(observer, set())
        return frozenset(p for p in pairs if p in had)

    def _keep_observer(self, observer: Observer) -> None:
        self._observers[observer.id] = observer

    def _keep_boundary(self, observer: str, view: frozenset[str], tick: int) -> None:
        self._view[observer] = view
        self._last_boundary[observer] = tick

    def _keep_row(self, obs: Observation) -> None:
        self._rows.append(obs)
        self._firsts.setdefault(obs.observer, set()).add((obs.kind, obs.subject))

    # ---- reads -------------------------------------------------------------------------------

    def handles(self, op: str) -> bool:
        return op in OPS

    def observers(self) -> tuple[Observer, ...]:
        return tuple(self._observers[k] for k in sorted(self._observers))

    def observations(self, observer: str | None = None) -> tuple[Observation, ...]:
        """Rows in write order, all of them or one observer's."""
        return tuple(r for r in self._rows if observer is None or r.observer == observer)

    def is_wordless(self, observer: str) -> bool:
        found = self.observer(observer)
        return found is not None and found.wordless

    def require_can_speak(self, observer: str, field: str = "observer") -> None:
        """Raise UserError if `observer` was declared wordless: it takes and makes no statements."""
        if self.is_wordless(observer):
            raise UserError(f"{observer} is wordless: it has no words to hear or say", field=field)

    def recall(
        self,
        observer: str,
        now: int,
        k: int = DEFAULT_K,
        half_life: float = DEFAULT_HALF_LIFE,
        w_recency: float = DEFAULT_W_RECENCY,
        w_importance: float = DEFAULT_W_IMPORTANCE,
    ) -> tuple[Recalled, ...]:
        """The observer's top k rows at tick `now` (see `recall.recall`)."""
        rows = self.observations(self._known(observer))
        return recall(rows, now, k, half_life, w_recency, w_importance, table=self.table)

    # ---- planning (validates, never mutates) ---------------------------------------------------

    def plan(self, op: str, payload: Mapping[str, Any]) -> Draft:
        """Plan an operation from a client's plain payload (the API's entry point)."""
        if not isinstance(payload, Mapping):
            raise UserError("payload must be an object", field="payload")
        if op == OP_DECLARE:
            return self.plan_declare(payload.get("observer"), payload.get("wordless", False))
        if op == OP_OBSERVE:
            return self.plan_observe(
                payload.get("observer"),
                payload.get("tick"),
                payload.get("kind"),
                payload.get("subject"),
                payload.get("magnitude", 0),
                payload.get("weight"),
            )
        if op == OP_PRESENCE:
            return self.plan_presence(
                payload.get("observer"),
                payload.get("tick"),
                payload.get("in_view"),
                payload.get("transfers", ()),
            )
        raise UserError(f"unknown stream operation {op!r}", field="op")

    def plan_declare(self, observer: Any, wordless: Any = False) -> Draft:
        """Declare an observer, optionally wordless. Declaring one twice is a Conflict; an observer
        first created by its own rows (when declaration is not required) may be declared once."""
        name = check_actor(observer, "observer")
        if not isinstance(wordless, bool):
            raise UserError(f"wordless must be true or false, got {wordless!r}", field="wordless")
        found = self.observer(name)
        if found is not None and found.declared:
            raise Conflict(f"observer {name} is already declared", field="observer")
        return Draft(OP_DECLARE, {"observer": name, "wordless": wordless})

    def plan_observe(
        self, observer: Any, tick: Any, kind: Any, subject: Any, magnitude: Any = 0, weight: Any = None
    ) -> Draft:
        """One row. Its weight comes from the table unless an explicit weight (1..10) is given."""
        name = self._writer(observer)
        at = check_tick(tick)
        kind_name = check_kind(kind, self.table)
        subj = check_subject(subject)
        mag = check_magnitude(magnitude, kind_name, self.table)
        first = not self.firsts_among(name, [(kind_name, subj)])
        if weight is None:
            weight = self.table.weigh(kind_name, mag, first=first).weight
        row = PlannedRow(kind_name, subj, mag, check_weight(weight), first)
        return Draft(OP_OBSERVE, {"observer": name, "tick": at, "rows": [_row(name, at, row)]})

    def plan_presence(self, observer: Any, tick: Any, in_view: Any, transfers: Any = ()) -> Draft:
        """One boundary: a presence row for each subject coming into view, then the transfers."""
        name = self._writer(observer)
        at = check_tick(tick)
        last = self.last_boundary(name)
        if last is not None and at < last:
            raise UserError(f"tick {at} is before this observer's last boundary at tick {last}", field="tick")
        view = check_view(in_view)
        moved: tuple[Transfer, ...] = check_transfers(transfers, self.table)
        rows = boundary_rows(
            self.table,
            self.in_view(name),
            self.firsts_among(name, boundary_pairs(self.table, view, moved)),
            view,
            moved,
            every_tick=self.every_tick,
        )
        payload = {
            "observer": name,
            "tick": at,
            "in_view": list(view),
            "transfers": [{"kind": t.kind, "subject": t.subject, "magnitude": t.magnitude} for t in moved],
            "rows": [_row(name, at, r) for r in rows],
        }
        return Draft(OP_PRESENCE, payload)

    def _known(self, observer: Any) -> str:
        name = check_actor(observer, "observer")
        if self.observer(name) is None:
            raise NotFound(f"observer {name} is not declared", field="observer")
        return name

    def _writer(self, observer: Any) -> str:
        name = check_actor(observer, "observer")
        if self.require_declared and self.observer(name) is None:
            raise NotFound(f"observer {name} is not declared", field="observer")
        return name

    # ---- apply ---------------------------------------------------------------------------------

    def apply(self, entry: Entry) -> Applied:
        """Apply one committed entry; the rows it carries are checked again before they are kept."""
        if entry.op == OP_DECLARE:
            return self._apply_declare(entry)
        if entry.op in (OP_OBSERVE, OP_PRESENCE):
            return self._apply_rows(entry)
        raise UserError(f"the stream does not apply {entry.op!r} entries", field="op")

    def _apply_declare(self, entry: Entry) -> Applied:
        name, wordless = declared(entry)
        self._keep_observer(Observer(name, wordless=wordless, declared=True))
        projection = Projection()
        projection.node("Actor", name, wordless=wordless, observer=True, declared=True)
        return Applied(projection, {"observer": name, "wordless": wordless})

    def _apply_rows(self, entry: Entry) -> Applied:
        name, written = rows_written(entry, self.table)
        projection = Projection()
        if self.observer(name) is None:
            self._keep_observer(Observer(name, wordless=False, declared=False))
            projection.node("Actor", name, wordless=False, observer=True, declared=False)
        if entry.op == OP_PRESENCE:
            view, tick = frozenset(check_view(entry.payload.get("in_view", ()))), check_tick(entry.payload.get("tick"))
            self._keep_boundary(name, view, tick)
            projection.node("Actor", name, view=sorted(view, key=subject_order), boundary_tick=tick)
        had = self.firsts_among(name, [(o.kind, o.subject) for o in written])
        for obs in written:
            props = observation_props(obs, entry.seq)
            if (obs.kind, obs.subject) not in had:  # its first row of the pair, whatever the row's own flag says
                props["first_of"] = first_key(name, obs.kind, obs.subject)
                had |= {(obs.kind, obs.subject)}
            self._keep_row(obs)
            projection.node("Observation", obs.id, **props)
            projection.edge("OBSERVED_BY", "Observation", obs.id, "Actor", name)
        return Applied(projection, {"observer": name, "rows": [o.as_row() for o in written]})


def declared(entry: Entry) -> tuple[str, bool]:
    """The observer a declaration names, and whether it is wordless."""
    return check_actor(entry.payload.get("observer"), "observer"), bool(entry.payload.get("wordless", False))


def rows_written(entry: Entry, table: WeightTable = DEFAULT_TABLE) -> tuple[str, list[Observation]]:
    """The observer of a row-writing entry and the rows it writes, each checked again (UserError for a bad one, or
    one of another observer's). Reads no state: what the entry writes is in its payload."""
    payload = entry.payload
    name = check_actor(payload.get("observer"), "observer")
    rows = payload.get("rows", [])
    if not isinstance(rows, list):
        raise UserError("rows must be a list", field="rows")
    written = [observation_from_row(raw, entry.seq, slot, table) for slot, raw in enumerate(rows)]
    for obs in written:
        if obs.observer != name:
            raise UserError(f"row {obs.id} belongs to {obs.observer}, not {name}", field="rows")
    return name, written


def applied_result(entry: Entry, table: WeightTable = DEFAULT_TABLE) -> dict[str, Any]:
    """What applying a stream entry gives (its `Applied.result`), from the entry alone."""
    if entry.op == OP_DECLARE:
        name, wordless = declared(entry)
        return {"observer": name, "wordless": wordless}
    if entry.op in (OP_OBSERVE, OP_PRESENCE):
        name, written = rows_written(entry, table)
        return {"observer": name, "rows": [o.as_row() for o in written]}
    raise UserError(f"the stream does not apply {entry.op!r} entries", field="op")


def first_key(observer: str, kind: str, subject: str) -> str:
    """The `first_of` of the Observation node of an observer's first row of a (kind, subject) pair: the key a write
    looks the pair up by (cypher/stream_parts.cypher)."""
    return canonical_json([observer, kind, subject])


def boundary_pairs(table: WeightTable, view: Iterable[str], moved: Iterable[Transfer]) -> list[tuple[str, str]]:
    """The (kind, subject) pairs a boundary may write a row of: a presence row of each subject in view, and each
    transfer's."""
    return [(table.presence_kind, s) for s in view] + [(t.kind, t.subject) for t in moved]


def observation_props(obs: Observation, seq: int) -> dict[str, Any]:
    """The scalar properties of an Observation node for a stream row."""
    return {
        "observer": obs.observer,
        "tick": obs.tick,
        "kind": obs.kind,
        "subject": obs.subject,
        "magnitude": obs.magnitude,
        "weight": obs.weight,
        "first": obs.first,
        "entry": seq,
    }


def _row(observer: str, tick: int, row: PlannedRow) -> dict[str, Any]:
    return {
        "observer": observer,
        "tick": tick,
        "kind": row.kind,
        "subject": row.subject,
        "magnitude": row.magnitude,
        "weight": row.weight,
        "first": row.first,
    }


def replay(state: StreamState, entries: Iterable[Entry]) -> StreamState:
    """Apply entries in order (the entries this domain handles) and return the state."""
    for entry in entries:
        if state.handles(entry.op):
            state.apply(entry)
    return state
