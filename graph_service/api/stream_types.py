"""GraphQL for the observation stream (SPEC 3.6): declare observers, write rows and boundaries, recall."""

from __future__ import annotations

from typing import Any

import strawberry

from graph_service.api.context import caught_up, journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.stream import OP_DECLARE, OP_OBSERVE, OP_PRESENCE


@strawberry.type(description="One stream row as written: (observer, tick, kind, subject, magnitude, weight).")
class StreamRow:
    id: str
    observer: str
    tick: int
    kind: str
    subject: str
    magnitude: int
    weight: int = strawberry.field(description="1..10, from the configured table unless given.")
    first: bool = strawberry.field(description="The observer's first row of this kind about this subject.")

    @classmethod
    def of(cls, row: dict[str, Any]) -> StreamRow:
        return cls(id=row["id"], observer=row["observer"], tick=row["tick"], kind=row["kind"],
                   subject=row["subject"], magnitude=row["magnitude"], weight=row["weight"], first=row["first"])


@strawberry.type(description="What one stream write appended: its journal entry and the rows it wrote.")
class StreamWrite:
    seq: int
    by: str
    observer: str
    rows: list[StreamRow]


@strawberry.type(description="An actor that keeps a stream; a wordless one takes and makes no statements.")
class Observer:
    id: str
    wordless: bool
    seq: int = strawberry.field(description="The journal position that declared it.")


@strawberry.type(description="A recalled row with every term of its score: w_r × recency + w_i × importance.")
class RecallRow:
    rank: int
    id: str
    observer: str
    tick: int
    kind: str
    subject: str
    magnitude: int
    weight: int
    first: bool
    age: int = strawberry.field(description="now − tick.")
    recency: float = strawberry.field(description="0.5^(age / halfLife).")
    importance: float = strawberry.field(description="weight / 10.")
    score: float


@strawberry.input(description="Something that moved between the observer and a subject at a boundary.")
class TransferInput:
    kind: str = strawberry.field(description="A row kind of the weight table.")
    subject: str = strawberry.field(description="What moved.")
    magnitude: int = strawberry.field(description="How much, as the kind's magnitude rule allows.")


def _stream_write(info: strawberry.Info[Any, Any], op: str, payload: dict[str, Any]) -> StreamWrite:
    service = service_of(info)
    written = journal_write(info, lambda: service.state.stream.plan(op, payload))
    result = written.result
    return StreamWrite(seq=written.entry.seq, by=written.entry.by, observer=result["observer"],
                       rows=[StreamRow.of(r) for r in result["rows"]])


@strawberry.type
class StreamQuery:
    @strawberry.field(description="An observer's top k rows at tick `now` by recency and importance; ties by "
                                  "write order. A row after `now` is an error.")
    @user_errors
    def recall(self, info: strawberry.Info[Any, Any], observer: str, now: int, k: int = 5,
               half_life: float = 50.0, w_recency: float = 1.0, w_importance: float = 1.0) -> list[RecallRow]:
        service = caught_up(info)
        ranked = service.state.stream.recall(observer, now, k, half_life, w_recency, w_importance)
        return [RecallRow(**r.as_dict()) for r in ranked]


@strawberry.type
class StreamMutation:
    @strawberry.mutation(description="Declare an observer; a wordless one refuses statements (say).")
    @user_errors
    def declare_observer(self, info: strawberry.Info[Any, Any], observer: str, wordless: bool = False) -> Observer:
        service = service_of(info)
        payload = {"observer": observer, "wordless": wordless}
        written = journal_write(info, lambda: service.state.stream.plan(OP_DECLARE, payload))
        return Observer(id=written.result["observer"], wordless=written.result["wordless"], seq=written.entry.seq)

    @strawberry.mutation(description="Append one row; its weight comes from the table unless given (1..10).")
    @user_errors
    def observe(self, info: strawberry.Info[Any, Any], observer: str, tick: int, kind: str, subject: str,
                magnitude: int = 0, weight: int | None = None) -> StreamWrite:
        payload = {"observer": observer, "tick": tick, "kind": kind, "subject": subject, "magnitude": magnitude,
                   "weight": weight}
        return _stream_write(info, OP_OBSERVE, payload)

    @strawberry.mutation(description="One boundary: a `seen` row for each subject coming into view (not for what "
                                     "stays in view), then the transfers.")
    @user_errors
    def presence(self, info: strawberry.Info[Any, Any], observer: str, tick: int, in_view: list[str],
                 transfers: list[TransferInput] | None = None) -> StreamWrite:
        payload = {"observer": observer, "tick": tick, "in_view": in_view,
                   "transfers": [{"kind": t.kind, "subject": t.subject, "magnitude": t.magnitude}
                                 for t in transfers or []]}
        return _stream_write(info, OP_PRESENCE, payload)
