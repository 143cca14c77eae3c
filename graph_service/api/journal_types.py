"""GraphQL types and resolvers of the journal: entries (a relay connection), head, verify, note."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Annotated, Any

import strawberry

from graph_service.api.arguments import After, First
from graph_service.api.context import journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.long_work import off_the_loop
from graph_service.api.node import Node
from graph_service.api.pages import Counted, page_size
from graph_service.api.scalars import Long
from graph_service.errors import NotFound, UserError
from graph_service.jobs.apart import RUNNING
from graph_service.jobs.verify_runs import VerifyRun as Run
from graph_service.jobs.verifying import FullReport
from graph_service.journal.chain import Entry, canonical_json
from graph_service.journal.notes import plan_note

_CURSOR_PREFIX = "entry:"


def encode_cursor(seq: int) -> str:
    return base64.b64encode(f"{_CURSOR_PREFIX}{seq}".encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    """The position a cursor names; 0 for none; UserError for a cursor this API did not issue."""
    if cursor is None:
        return 0
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if not text.startswith(_CURSOR_PREFIX):
            raise ValueError
        seq = int(text[len(_CURSOR_PREFIX):])
        if seq < 0:
            raise ValueError
        return seq
    except ValueError:
        raise UserError(f"after: {cursor!r} is not a journal cursor", field="after") from None


@strawberry.type(description="One journal entry: a write, chained to its predecessor by hash.")
class JournalEntry(Node):
    id: strawberry.ID = strawberry.field(description="entry-<seq>: its id as a node.")
    seq: int = strawberry.field(description="Its journal position, from 1, one more than the entry before.")
    op: str = strawberry.field(description="The operation it records (note, item.add, belief.create, …).")
    by: str = strawberry.field(description="The principal who wrote it.")
    at: datetime = strawberry.field(description="When it was written (UTC).")
    hash: str = strawberry.field(description="sha256 (hex) of prev followed by the entry's canonical JSON.")
    prev: str = strawberry.field(description="The hash of the entry before; 64 zeros for the first.")
    payload: str = strawberry.field(description="The entry's payload as canonical JSON.")

    @classmethod
    def of(cls, entry: Entry) -> JournalEntry:
        return cls(id=strawberry.ID(f"entry-{entry.seq}"), seq=entry.seq, op=entry.op, by=entry.by,
                   at=datetime.fromtimestamp(entry.at / 1000, UTC),
                   hash=entry.hash, prev=entry.prev, payload=canonical_json(entry.payload))


@strawberry.type(description="One journal entry of a page and the cursor to resume after it.")
class JournalEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this entry.")
    node: JournalEntry = strawberry.field(description="The entry.")


@strawberry.type(description="Where a page of a connection starts and ends, and whether there is more.")
class PageInfo:
    has_next_page: bool = strawberry.field(description="True when nodes follow this page.")
    start_cursor: str | None = strawberry.field(description="The first edge's cursor; null for an empty page.")
    end_cursor: str | None = strawberry.field(description="The last edge's cursor, to pass as `after` for the next "
                                                          "page; null for an empty page.")
    counted: strawberry.Private[Counted]

    @strawberry.field(description="True when nodes come before this page.")
    def has_previous_page(self) -> bool:
        # Read only when asked: on a list read from the graph it is a statement of its own (pages.Counted).
        return self.counted.earlier

    @staticmethod
    def of(cursors: list[str], more: bool, counted: Counted) -> PageInfo:
        """The page info of a page whose edges have these cursors, in order."""
        return PageInfo(has_next_page=more, start_cursor=cursors[0] if cursors else None,
                        end_cursor=cursors[-1] if cursors else None, counted=counted)


@strawberry.type(description="A page of journal entries in order, and how many there are in all.")
class JournalConnection:
    edges: list[JournalEdge] = strawberry.field(description="This page's entries, in journal order.")
    page_info: PageInfo = strawberry.field(description="Whether there are more, and the cursors that bound it.")
    total_count: int = strawberry.field(description="How many entries the journal holds (its last position).")


@strawberry.type(description="A node a journal entry wrote.")
class WrittenNode:
    label: str = strawberry.field(description="Its label: Item, Belief, Evidence, Observation, ...")
    id: str = strawberry.field(description="Its id.")


@strawberry.type(description="One journal entry and the nodes it wrote.")
class EntryWithWrites(JournalEntry):
    wrote: list[WrittenNode] = strawberry.field(description="The nodes its projection wrote (at most 500).")


@strawberry.type(description="The journal head: the last position and its hash.")
class Head:
    seq: int = strawberry.field(description="The last journal position; 0 for an empty journal.")
    hash: str = strawberry.field(description="The hash of the entry there; 64 zeros for an empty journal.")
    projected: int = strawberry.field(description="The last position applied to the graph.")


@strawberry.type(description="Whether the stored journal is whole and the graph equals its replay.")
class Verification:
    ok: bool = strawberry.field(description="True when the chain is whole and the graph equals its replay.")
    checked: int = strawberry.field(description="How many entries were read and checked.")
    head_seq: int = strawberry.field(description="The position the stored head names.")
    first_bad: int | None = strawberry.field(description="The first broken journal position, if any.")
    reason: str | None = strawberry.field(description="What is wrong, in words; null when ok.")
    projection_ok: bool = strawberry.field(description="The graph equals a pure replay: every status and "
                                                       "confidence, and every property of every node it projects.")
    fingerprint: str | None = strawberry.field(description="What a pure replay of the journal believes.")

    @classmethod
    def of(cls, report: FullReport) -> Verification:
        chain = report.chain
        return cls(ok=report.ok, checked=chain.checked, head_seq=chain.head_seq, first_bad=chain.first_bad,
                   reason=chain.reason if not chain.ok else report.projection_difference,
                   projection_ok=report.projection_ok, fingerprint=report.replay_fingerprint)


@strawberry.type(description="A verify started by `startVerify`, which runs in the background: while it runs, "
                             "`longWork` shows how far it has come.")
class VerifyRun:
    started_at: Long = strawberry.field(description="When it began, in epoch milliseconds.")
    finished_at: Long | None = strawberry.field(description="When it ended; null while it runs.")
    verification: Verification | None = strawberry.field(description="What it found; null while it runs, or when "
                                                                     "it could not run (see `error`).")
    error: str | None = strawberry.field(description="Why it gave no verification (the process doing it failed); "
                                                     "null otherwise.")

    @strawberry.field(description="True until it ends.")
    def running(self) -> bool:
        return self.finished_at is None

    @classmethod
    def of(cls, run: Run) -> VerifyRun:
        return cls(started_at=Long(run.started_at),
                   finished_at=None if run.finished_at is None else Long(run.finished_at),
                   verification=None if run.report is None else Verification.of(run.report), error=run.error)


@strawberry.type(description="Whole-journal work the service has running now (verify, rebuild, redecide, a PROV "
                               "document, a read as of a past position), and how far it has come.")
class LongWork:
    job: str = strawberry.field(description="What it does: verify, rebuild, redecide, prov, or the read as of a "
                                            "position (report_as_of, beliefs_as_of, ...).")
    started_at: Long = strawberry.field(description="When it began, in epoch milliseconds.")
    done: Long = strawberry.field(description="How many journal entries it has read so far (0 for work that does "
                                              "not count them); once verify's step says it compares the graph, "
                                              "how many nodes and edges it has compared.")
    total: Long | None = strawberry.field(description="How many it reads (or compares) in all; null until it says.")
    step: str | None = strawberry.field(description="What it is doing now, where it says (verify: comparing the "
                                                    "graph with the replay, once it has read the journal).")


@strawberry.type
class JournalQuery:
    @strawberry.field(description="Journal entries in order, a page at a time (first ≤ 500).")
    @user_errors
    def journal(self, info: strawberry.Info[Any, Any], first: First = None, after: After = None) -> JournalConnection:
        size, start = page_size(first), decode_cursor(after)
        journal = service_of(info).journal
        journal.catch_up()
        entries = list(journal.entries_after(start, size + 1))
        more, entries = len(entries) > size, entries[:size]
        edges = [JournalEdge(cursor=encode_cursor(e.seq), node=JournalEntry.of(e)) for e in entries]
        return JournalConnection(
            edges=edges,
            page_info=PageInfo.of([e.cursor for e in edges], more, Counted(journal.seq, start > 0)),
            total_count=journal.seq,
        )

    @strawberry.field(description="The journal entry at a position, with the nodes it wrote."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def journal_entry(self, info: strawberry.Info[Any, Any],
                      seq: Annotated[int, strawberry.argument(description="Its journal position, from 1.")]
                      ) -> EntryWithWrites | None:
        journal = service_of(info).journal
        journal.catch_up()
        found = list(journal.entries_after(seq - 1, 1)) if seq >= 1 else []
        if not found or found[0].seq != seq:
            raise NotFound(f"seq: no journal entry at position {seq}", field="seq")
        base = JournalEntry.of(found[0])
        wrote = [WrittenNode(label=r["label"], id=str(r["id"]))
                 for r in journal.graph.run("entry_wrote", {"seq": seq, "limit": 500})]
        return EntryWithWrites(**base.__dict__, wrote=wrote)

    @strawberry.field(description="The journal head as stored.")
    def head(self, info: strawberry.Info[Any, Any]) -> Head:
        row = service_of(info).journal.stored_head()
        return Head(seq=row["seq"], hash=row["hash"], projected=row["projected"])

    @strawberry.field(description="The whole-journal work this serving process has running now, oldest first, "
                                  "with its progress (admin): a verify another request started shows here as it "
                                  "reads the journal. Under `serve --workers N` each worker shows its own.")
    def long_work(self) -> list[LongWork]:
        return [LongWork(job=w.job, started_at=Long(w.started_at), done=Long(w.done),
                         total=None if w.total is None else Long(w.total), step=w.step) for w in RUNNING.running()]

    @strawberry.field(description="Re-read and check the whole stored journal, and that the graph equals its "
                                  "replay (admin; runs beside other requests, one at a time).")
    async def verify(self, info: strawberry.Info[Any, Any]) -> Verification:
        return Verification.of(await off_the_loop(service_of(info).verify_apart))

    @strawberry.field(description="Start `verify` in the background and answer at once (admin), so no request "
                                  "waits the minutes it takes on a large store; the run already going, if one is. "
                                  "Watch it with `longWork`, read what it found with `verifyRun`. A query, as "
                                  "`verify` is: it writes no journal entry (each mutation writes one).")
    def start_verify(self, info: strawberry.Info[Any, Any]) -> VerifyRun:
        return VerifyRun.of(service_of(info).verify_runs.start())

    @strawberry.field(description="The latest verify started by `startVerify` in this serving process (admin), "
                                  "running or done; null before the first. Under `serve --workers N` each worker "
                                  "keeps its own.")
    def verify_run(self, info: strawberry.Info[Any, Any]) -> VerifyRun | None:
        run = service_of(info).verify_runs.latest()
        return None if run is None else VerifyRun.of(run)


@strawberry.type
class JournalMutation:

    @strawberry.mutation(description="Append a note (non-empty, at most 10,000 characters) to the journal.")
    @user_errors
    async def note(self, info: strawberry.Info[Any, Any],
             text: Annotated[str, strawberry.argument(description="What to note.")]) -> JournalEntry:
        result = await journal_write(info, lambda: plan_note(text))
        return JournalEntry.of(result.entry)
