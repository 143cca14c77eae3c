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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from graph_service.domain import Applied, Draft
from graph_service.errors import Conflict, NotFound, UserError
from graph_service.journal.chain import Entry
from graph_service.projection import Projection
from graph_service.stream.boundary import PlannedRow, Transfer, boundary_rows, check_transfers, check_view
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


@dataclass(frozen=True)
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

    # ---- reads -------------------------------------------------------------------------------

    def handles(self, op: str) -> bool:
        return op in OPS

    def observer(self, observer: str) -> Observer | None:
        return self._observers.get(observer)

    def observers(self) -> tuple[Observer, ...]:
        return tuple(self._observers[k] for k in sorted(self._observers))

    def observations(self, observer: str | None = None) -> tuple[Observation, ...]:
        """Rows in write order, all of them or one observer's."""
        return tuple(r for r in self._rows if observer is None or r.observer == observer)

    def in_view(self, observer: str) -> frozenset[str]:
        """What the observer had in view at its last boundary."""
        return self._view.get(observer, frozenset())

    def is_wordless(self, observer: str) -> bool:
        found = self._observers.get(observer)
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
        found = self._observers.get(name)
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
        first = (kind_name, subj) not in self._firsts.get(name, set())
        if weight is None:
            weight = self.table.weigh(kind_name, mag, first=first).weight
        row = PlannedRow(kind_name, subj, mag, check_weight(weight), first)
        return Draft(OP_OBSERVE, {"observer": name, "tick": at, "rows": [_row(name, at, row)]})

    def plan_presence(self, observer: Any, tick: Any, in_view: Any, transfers: Any = ()) -> Draft:
        """One boundary: a presence row for each subject coming into view, then the transfers."""
        name = self._writer(observer)
        at = check_tick(tick)
        last = self._last_boundary.get(name)
        if last is not None and at < last:
            raise UserError(f"tick {at} is before this observer's last boundary at tick {last}", field="tick")
        view = check_view(in_view)
        moved: tuple[Transfer, ...] = check_transfers(transfers, self.table)
        rows = boundary_rows(
            self.table,
            self._view.get(name, frozenset()),
            frozenset(self._firsts.get(name, set())),
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
        if name not in self._observers:
            raise NotFound(f"observer {name} is not declared", field="observer")
        return name

    def _writer(self, observer: Any) -> str:
        name = check_actor(observer, "observer")
        if self.require_declared and name not in self._observers:
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
        name = check_actor(entry.payload.get("observer"), "observer")
        wordless = bool(entry.payload.get("wordless", False))
        self._observers[name] = Observer(name, wordless=wordless, declared=True)
        projection = Projection()
        projection.node("Actor", name, wordless=wordless, observer=True)
        return Applied(projection, {"observer": name, "wordless": wordless})

    def _apply_rows(self, entry: Entry) -> Applied:
        payload = entry.payload
        name = check_actor(payload.get("observer"), "observer")
        rows = payload.get("rows", [])
        if not isinstance(rows, list):
            raise UserError("rows must be a list", field="rows")
        written = [observation_from_row(raw, entry.seq, slot, self.table) for slot, raw in enumerate(rows)]
        for obs in written:
            if obs.observer != name:
                raise UserError(f"row {obs.id} belongs to {obs.observer}, not {name}", field="rows")
        projection = Projection()
        if name not in self._observers:
            self._observers[name] = Observer(name, wordless=False, declared=False)
            projection.node("Actor", name, wordless=False, observer=True)
        if entry.op == OP_PRESENCE:
            self._view[name] = frozenset(check_view(payload.get("in_view", ())))
            self._last_boundary[name] = check_tick(payload.get("tick"))
        firsts = self._firsts.setdefault(name, set())
        for obs in written:
            self._rows.append(obs)
            firsts.add((obs.kind, obs.subject))
            projection.node("Observation", obs.id, **observation_props(obs, entry.seq))
            projection.edge("OBSERVED_BY", "Observation", obs.id, "Actor", name)
        return Applied(projection, {"observer": name, "rows": [o.as_row() for o in written]})


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
