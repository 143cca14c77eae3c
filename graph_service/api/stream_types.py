"""GraphQL for the observation stream (SPEC 3.6): declare observers, write rows and boundaries, recall."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from graph_service.api.context import caught_up, journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.long_work import off_the_loop
from graph_service.api.scalars import Long
from graph_service.history import check_position
from graph_service.projection import KEEPS_NOW_READS
from graph_service.service import Service
from graph_service.stream import OP_DECLARE, OP_OBSERVE, OP_PRESENCE, Recalled, recall
from graph_service.stream.as_of import newest_kept, stream_at, stream_now
from graph_service.stream.recall import recall_of_newest
from graph_service.stream.rows import check_actor


@strawberry.type(description="One stream row as written: (observer, tick, kind, subject, magnitude, weight).")
class StreamRow:
    id: str = strawberry.field(description="obs-<seq>-<slot>: the slot-th row the entry at seq wrote.")
    observer: str = strawberry.field(description="The observer whose stream it is.")
    tick: Long = strawberry.field(description="The observer's tick it happened at.")
    kind: str = strawberry.field(description="What happened: a kind of the configured table (seen, given, taken, …).")
    subject: str = strawberry.field(description="What it is about.")
    magnitude: int = strawberry.field(description="How much, as the kind's magnitude rule allows (0 when it has "
                                                  "none).")
    weight: int = strawberry.field(description="1..10, from the configured table unless given.")
    first: bool = strawberry.field(description="The observer's first row of this kind about this subject.")

    @classmethod
    def of(cls, row: dict[str, Any]) -> StreamRow:
        return cls(id=row["id"], observer=row["observer"], tick=row["tick"], kind=row["kind"],
                   subject=row["subject"], magnitude=row["magnitude"], weight=row["weight"], first=row["first"])


@strawberry.type(description="What one stream write appended: its journal entry and the rows it wrote.")
class StreamWrite:
    seq: int = strawberry.field(description="The journal position of its entry.")
    by: str = strawberry.field(description="The principal who wrote it.")
    observer: str = strawberry.field(description="The observer it wrote for, as spelt once checked.")
    rows: list[StreamRow] = strawberry.field(description="The rows it appended, in order (none for a boundary where "
                                                         "nothing came into view or moved).")


@strawberry.type(description="An actor that keeps a stream; a wordless one takes and makes no statements.")
class Observer:
    id: str = strawberry.field(description="The observer, spelt as actors are (NFKC, case-folded).")
    wordless: bool = strawberry.field(description="True when it takes and makes no statements (say refuses it).")
    seq: int = strawberry.field(description="The journal position that declared it.")


@strawberry.type(description="A recalled row with every term of its score: w_r × recency + w_i × importance.")
class RecallRow:
    rank: int = strawberry.field(description="Its place in the answer, from 1.")
    id: str = strawberry.field(description="obs-<seq>-<slot>: the slot-th row the entry at seq wrote.")
    observer: str = strawberry.field(description="The observer whose stream it is.")
    tick: Long = strawberry.field(description="The observer's tick it happened at.")
    kind: str = strawberry.field(description="What happened: a kind of the configured table (seen, given, taken, …).")
    subject: str = strawberry.field(description="What it is about.")
    magnitude: int = strawberry.field(description="How much, as the kind's magnitude rule allows (0 when it has "
                                                  "none).")
    weight: int = strawberry.field(description="Its importance, 1 to 10.")
    first: bool = strawberry.field(description="The observer's first row of this kind about this subject.")
    age: Long = strawberry.field(description="now − tick.")
    recency: float = strawberry.field(description="0.5^(age / halfLife).")
    importance: float = strawberry.field(description="weight / 10.")
    score: float = strawberry.field(description="wRecency × recency + wImportance × importance.")


@strawberry.input(description="Something that moved between the observer and a subject at a boundary.")
class TransferInput:
    kind: str = strawberry.field(description="A row kind of the weight table.")
    subject: str = strawberry.field(description="What moved.")
    magnitude: int = strawberry.field(description="How much, as the kind's magnitude rule allows.")


async def _stream_write(info: strawberry.Info[Any, Any], op: str, payload: dict[str, Any]) -> StreamWrite:
    service = service_of(info)
    # Holding no stream state, the plan reads only the graph: it runs in a worker thread too.
    written = await journal_write(info, lambda: service.state.stream.plan(op, payload),
                                  plan_off_loop=service.stream_in_graph)
    result = written.result
    return StreamWrite(seq=written.entry.seq, by=written.entry.by, observer=result["observer"],
                       rows=[StreamRow.of(r) for r in result["rows"]])


def _recall_as_of(service: Service, observer: str, as_of: int, now: int, k: int, half_life: float,
                  w_recency: float, w_importance: float) -> tuple[Recalled, ...]:
    """The head's ranking over the observer's rows as the graph's history says they were at `as_of`."""
    check_position(as_of, service.journal.seq)
    name = check_actor(observer, "observer")
    history = service.graph.run("observer_stream_upto", {"observer": name, "upto": as_of})
    table = service.state.stream.table
    return recall(stream_at(history, name, as_of, table), now, k, half_life, w_recency, w_importance, table=table)


def recall_now(service: Service, observer: str, now: int, k: int, half_life: float, w_recency: float,
                w_importance: float) -> tuple[Recalled, ...]:
    """The head's ranking over the observer's rows as the graph's nodes hold them: from each weight's k newest
    and k first written rows (one statement, the server sorting them), or, when those cannot tell
    (recall_of_newest), from every row (one more)."""
    name = check_actor(observer, "observer")
    table = service.state.stream.table
    kept, cut = newest_kept(service.graph.run("observer_stream_newest", {"observer": name, "k": max(k, 1)}))
    ranked = recall_of_newest(stream_now(kept, name, table), cut, now, k, half_life, w_recency, w_importance,
                              table=table)
    if ranked is not None:
        return ranked
    rows = stream_now(service.graph.run("observer_stream", {"observer": name}), name, table)
    return recall(rows, now, k, half_life, w_recency, w_importance, table=table)


ObserverName = Annotated[str, strawberry.argument(description="The observer, spelt as actors are (NFKC, case-folded).")]
Tick = Annotated[Long, strawberry.argument(description="The observer's tick it happened at (not negative).")]


@strawberry.type
class StreamQuery:
    @strawberry.field(description="An observer's top k rows at tick `now` by recency and importance; ties by "
                                  "write order. A row after `now` is an error.")
    @user_errors
    async def recall(self, info: strawberry.Info[Any, Any], observer: ObserverName,
               now: Annotated[Long, strawberry.argument(description="The tick to recall at; ages are now − tick.")],
               k: Annotated[int, strawberry.argument(description="How many rows at most (not negative).")] = 5,
               half_life: Annotated[float, strawberry.argument(
                   description="The age, in ticks, at which recency halves.")] = 50.0,
               w_recency: Annotated[float, strawberry.argument(description="The weight of recency in the score.")
                                    ] = 1.0,
               w_importance: Annotated[float, strawberry.argument(
                   description="The weight of importance in the score.")] = 1.0,
               as_of: Annotated[Long | None, strawberry.argument(
                   description="Recall the stream as it was at this journal position (0 to the head), from the "
                               "graph's history: the rows written by then. Null: now.")] = None) -> list[RecallRow]:
        service = caught_up(info)
        if as_of is None and service.journal.keeps_at_least(KEEPS_NOW_READS):
            # The observer's rows from the graph as its nodes are now, in a worker thread: what the ranking
            # reads is the observer's rows, never the store (nor the in-memory state's copy of them).
            ranked = await off_the_loop(lambda: recall_now(service, observer, now, k, half_life, w_recency,
                                                            w_importance), "past")
        elif as_of is None:  # a store written before the graph kept what the service reads: its state's
            ranked = service.state.stream.recall(observer, now, k, half_life, w_recency, w_importance)
        else:
            ranked = await off_the_loop(lambda: _recall_as_of(service, observer, as_of, now, k, half_life,
                                                              w_recency, w_importance), "past")
        return [RecallRow(**r.as_dict()) for r in ranked]


@strawberry.type
class StreamMutation:
    @strawberry.mutation(description="Declare an observer; a wordless one refuses statements (say).")
    @user_errors
    async def declare_observer(self, info: strawberry.Info[Any, Any], observer: ObserverName,
                         wordless: Annotated[bool, strawberry.argument(
                             description="True: it takes and makes no statements.")] = False) -> Observer:
        service = service_of(info)
        payload = {"observer": observer, "wordless": wordless}
        written = await journal_write(info, lambda: service.state.stream.plan(OP_DECLARE, payload),
                                      plan_off_loop=service.stream_in_graph)
        return Observer(id=written.result["observer"], wordless=written.result["wordless"], seq=written.entry.seq)

    @strawberry.mutation(description="Append one row; its weight comes from the table unless given (1..10).")
    @user_errors
    async def observe(self, info: strawberry.Info[Any, Any], observer: ObserverName, tick: Tick,
                kind: Annotated[str, strawberry.argument(description="A kind of the configured weight table.")],
                subject: Annotated[str, strawberry.argument(description="What it is about.")],
                magnitude: Annotated[int, strawberry.argument(
                    description="How much, as the kind's magnitude rule allows.")] = 0,
                weight: Annotated[int | None, strawberry.argument(
                    description="Its importance, 1 to 10; null: from the table.")] = None) -> StreamWrite:
        payload = {"observer": observer, "tick": tick, "kind": kind, "subject": subject, "magnitude": magnitude,
                   "weight": weight}
        return await _stream_write(info, OP_OBSERVE, payload)

    @strawberry.mutation(description="One boundary: a `seen` row for each subject coming into view (not for what "
                                     "stays in view), then the transfers.")
    @user_errors
    async def presence(self, info: strawberry.Info[Any, Any], observer: ObserverName, tick: Tick,
                 in_view: Annotated[list[str], strawberry.argument(
                     description="Every subject in view now; a seen row is written for each that was not before.")],
                 transfers: Annotated[list[TransferInput] | None, strawberry.argument(
                     description="What moved between the observer and a subject at this boundary.")] = None,
                 ) -> StreamWrite:
        payload = {"observer": observer, "tick": tick, "in_view": in_view,
                   "transfers": [{"kind": t.kind, "subject": t.subject, "magnitude": t.magnitude}
                                 for t in transfers or []]}
        return await _stream_write(info, OP_PRESENCE, payload)
