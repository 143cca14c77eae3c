"""Whole-journal work run by a Python process of its own, connected to the same store.

Why: verify, rebuild, redecide, a PROV document, and the fingerprint, report, decision snapshot or open
questions as of a past position, and the pages of disputes, flags, questions, unknowns, items (a filter
naming no ids) and beliefs as of one, each read the whole journal (or the whole graph's history) and
fold it in pure Python. Run in a worker thread of the serving process, that work holds the interpreter lock for
its length, so every other request, /healthz too, waits on it in turns (measured for verify: /healthz
p99 84-146 ms); run on the event loop, as the as-of folds were, it holds up every request for its whole
length. A child connects to the store the service serves (`GraphPort.connection()`), does the job and
hands back its answer as one JSON line; the service waits for it in a worker thread, which costs its
event loop nothing. The children are kept between jobs (graph_service.jobs.apart_workers): a new one spends half a
second importing before it reads its job.

A job is a function of the graph and plain JSON arguments that returns plain JSON (JOBS). A job that reads
the journal entry by entry says how far it has come (`progress`): the child prints a progress line at most
every PROGRESS_SECONDS (and whenever its step changes or it has read all it reads), and the service keeps
it on its board of work running (`RUNNING`, graph_service.jobs.work_board), which an admin reads (`longWork`)
while the request that started it waits. A UserError
the job raises (NotFound for a skipped id, a cursor of another list) comes back as the same error, with
its field. A list read's job cuts its page there (graph_service.api.read_pages, the same code as the
read now) and hands back only the page's records; the resolver builds the GraphQL types from them.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from graph_service import errors
from graph_service.jobs.apart_workers import POOL
from graph_service.jobs.work_board import WorkBoard
from graph_service.storage.port import GraphPort

T = TypeVar("T")
PROGRESS_SECONDS = 0.5  # at most one progress line this often from a child (see _ProgressLines)
COMPARING = "comparing the graph with the replay"  # verify's step once it has read the journal
PROGRESS_KEY = "progress"
RETIRING_KEY = "retiring"  # in an answer: the worker exits after it (see main)
# A worker whose peak memory reached this (in KiB, as getrusage gives it on Linux) exits after its job: what a
# whole-journal fold took goes back to the system with the process.
RETIRE_PEAK_KB = 512 * 1024
RUNNING = WorkBoard()  # what this process has running apart, with its progress


def _no_progress(done: int, total: int | None, step: str | None = None) -> None:
    """Where a job's progress goes when it runs in this process (a test, the command line): nowhere."""


# Set by the child (`main`) to print progress lines for the service to read.
progress: Callable[..., None] = _no_progress


def counted(items: Iterable[T], total: int | None) -> Iterator[T]:
    """`items` as they are, each one reported as progress as it passes (of `total`)."""
    done = 0
    for item in items:
        yield item
        done += 1
        progress(done, total)
    progress(done, total)


class _ProgressLines:
    """The child's progress: a line {"progress": [done, total, step]} on stdout, at most every
    PROGRESS_SECONDS, and at once when the step changes or `done` reaches `total` (never the same line twice)."""

    def __init__(self) -> None:
        self._last = 0.0
        self._said: tuple[int, int | None, str | None] | None = None

    def __call__(self, done: int, total: int | None, step: str | None = None) -> None:
        now = time.monotonic()
        line = (done, total, step)
        if line == self._said:
            return
        if now - self._last >= PROGRESS_SECONDS or done == total or self._said is None or step != self._said[2]:
            self._last, self._said = now, line
            print(json.dumps({PROGRESS_KEY: list(line)}), flush=True)


def verify_job(graph: GraphPort) -> dict[str, Any]:
    """verifying.verify_store of the store, as FullReport.as_json()."""
    from graph_service.jobs.verifying import verify_store
    from graph_service.journal.store import Journal

    journal = Journal(graph, [])
    total = journal.stored_length()
    checked = 0

    def on_entry(_entry: object) -> None:
        nonlocal checked
        checked += 1
        progress(checked, total)

    # Once it compares, its progress counts the nodes and edges compared (the step says so).
    report = verify_store(graph, journal, on_entry=on_entry, on_compare=lambda: progress(0, None, COMPARING),
                          on_compared=lambda compared, of: progress(compared, of, COMPARING))
    return report.as_json()


def chain_audit_job(graph: GraphPort, upto: int, after: int = 0) -> dict[str, Any]:
    """journal.audit.JournalAudit over the stored entries after `after` up to `upto`, as a start that replayed
    nothing checks the chain (journal.background_audit.BackgroundAudit), starting from the hash, store clock and
    Merkle frontier stored at `after`: how far it checked, and the first broken position and why (None: sound)."""
    from graph_service.journal.audit import JournalAudit
    from graph_service.journal.store import Journal

    journal = Journal(graph, [])
    _, prev, clock, frontier = journal.stored_position(after)
    audit, checked = JournalAudit(after=after, prev=prev, frontier=frontier, clock=clock), after
    for row in journal.entry_rows_after(after, upto - after):
        if audit.feed(row) is None:
            break
        checked = row["seq"]
        progress(checked, upto)
    progress(checked, upto)
    found = audit.finding
    return {"checked": checked, "finding": None if found is None else [found.position, found.reason]}


def rebuild_job(graph: GraphPort, upto: int | None = None, skip: list[str] | None = None) -> dict[str, Any]:
    """StoreState.fingerprints() of the journal replayed purely up to `upto`, leaving out the `skip` items'
    own entries (state.replay)."""
    from graph_service.journal.store import Journal
    from graph_service.state import replay

    journal = Journal(graph, [])
    entries = counted(journal.entries_after(0, limit=upto), journal.stored_length() if upto is None else upto)
    return replay(entries, upto=upto, skip=skip or ()).fingerprints()


def redecide_job(graph: GraphPort, retracted: list[str]) -> list[list[dict[str, Any]]]:
    """[answer changes, justification only] of the recorded decisions if `retracted` had never been
    written (knowledge.replay.redecide, deciding on the facts given)."""
    from graph_service.journal.store import Journal
    from graph_service.knowledge.replay import given_facts, redecide

    journal = Journal(graph, [])
    entries = counted(journal.entries_after(0), journal.stored_length())
    changed, justified = redecide(entries, retracted, given_facts)
    return [changed, justified]


def fingerprints_as_of_job(graph: GraphPort, as_of: int) -> dict[str, Any]:
    """fingerprint_as_of.fingerprints_as_of: what the store believed at `as_of`, from the graph's history."""
    from graph_service.fingerprint_as_of import fingerprints_as_of

    return fingerprints_as_of(graph, as_of)


def prov_job(graph: GraphPort, node: str, format: str, upto: int) -> str:
    """prov.prov_document of one node's derivation in the store as the journal up to `upto` gives it,
    serialised in `format` (NotFound for an id no node has)."""
    from graph_service.journal.store import Journal
    from graph_service.prov import prov_document, serialize
    from graph_service.state import replay

    entries = list(counted(Journal(graph, []).entries_after(0, limit=upto), upto))
    return serialize(prov_document(replay(entries), entries, node=node), format)


def report_as_of_job(graph: GraphPort, as_of: int) -> Any:
    """KnowledgeState.report() of the store at `as_of` (a checked position), from the graph's history."""
    from graph_service.api.knowledge_as_of import EVERY_PART, SNAPSHOTS, knowledge_from_history

    return knowledge_from_history(graph, as_of, EVERY_PART - {SNAPSHOTS}).report()


def snapshot_as_of_job(graph: GraphPort, as_of: int, **asked: Any) -> Any:
    """KnowledgeState.snapshot(**asked) of the store at `as_of` (a checked position): what a decision
    would have been given then (every item's history is read)."""
    from graph_service.api.knowledge_as_of import CLOCK, FLAGS, ITEMS, POSITION, knowledge_from_history

    return knowledge_from_history(graph, as_of, frozenset({ITEMS, FLAGS, CLOCK, POSITION})).snapshot(**asked)


def open_questions_as_of_job(graph: GraphPort, as_of: int) -> list[dict[str, Any]]:
    """questions.ranking.open_question_rows of the store at `as_of` (a checked position), from the graph's
    history: every open target then, ranked."""
    from graph_service.api.knowledge_as_of import (
        EVERY_PART,
        POSITION,
        REFUSALS,
        knowledge_from_history,
        questions_from_history,
    )
    from graph_service.questions.ranking import open_question_rows
    from graph_service.questions.targets import StateTargets

    # The targets read items, flags, disputes, snapshots and the clock; not the knowledge position (a look
    # back over the entries) nor the refusals.
    knowledge = knowledge_from_history(graph, as_of, EVERY_PART - {POSITION, REFUSALS})
    return open_question_rows(StateTargets(knowledge), questions_from_history(graph, as_of))


def disputes_as_of_job(graph: GraphPort, as_of: int, first: int | None, after: str | None) -> dict[str, Any]:
    """The page disputes(first, after) shows at `as_of` (a checked position), from every dispute's
    history: read_pages.dispute_page as Page.as_json, each dispute as read_pages.record_json."""
    from graph_service.api.knowledge_as_of import DISPUTES, knowledge_from_history
    from graph_service.api.read_pages import dispute_page, record_json

    knowledge = knowledge_from_history(graph, as_of, frozenset({DISPUTES}))
    return dispute_page(knowledge, first, after).as_json(record_json)


def flags_as_of_job(graph: GraphPort, as_of: int, pending: bool | None, first: int | None,
                    after: str | None) -> dict[str, Any]:
    """The page flags(pending, first, after) shows at `as_of` (a checked position): the flags raised by
    then, pending or ended as they were then, with what they covered (every flag's history), as
    read_pages.flag_page gives it, in Page.as_json."""
    from graph_service.api.knowledge_as_of import FLAGS, knowledge_from_history
    from graph_service.api.read_pages import flag_page, record_json

    knowledge = knowledge_from_history(graph, as_of, frozenset({FLAGS}))
    return flag_page(knowledge, pending, first, after).as_json(record_json)


def questions_as_of_job(graph: GraphPort, as_of: int, answered: bool | None, first: int | None,
                        after: str | None) -> dict[str, Any]:
    """The page questions(answered, first, after) shows at `as_of` (a checked position), from every
    question's history: read_pages.question_page in Page.as_json."""
    from graph_service.api.knowledge_as_of import questions_from_history
    from graph_service.api.read_pages import question_page, record_json

    return question_page(questions_from_history(graph, as_of), answered, first, after).as_json(record_json)


def unknowns_as_of_job(graph: GraphPort, as_of: int, answered: bool | None, first: int | None,
                       after: str | None) -> dict[str, Any]:
    """The page unknowns(answered, first, after) shows at `as_of` (a checked position), from every
    unknown's history: read_pages.unknown_page in Page.as_json."""
    from graph_service.api.knowledge_as_of import questions_from_history
    from graph_service.api.read_pages import record_json, unknown_page

    return unknown_page(questions_from_history(graph, as_of), answered, first, after).as_json(record_json)


def items_as_of_job(graph: GraphPort, as_of: int, given: dict[str, Any], size: int,
                    after: str | None) -> dict[str, Any]:
    """The page items(filter, first, after) shows at `as_of` (a checked position) for a filter naming no
    ids (`given`: KnowledgeState.find's filters): every item's history, the flags and the clock then, as
    read_pages.item_page gives it, in ItemPage.as_json."""
    from graph_service.api.knowledge_as_of import CLOCK, FLAGS, ITEMS, knowledge_from_history
    from graph_service.api.read_pages import item_page

    knowledge = knowledge_from_history(graph, as_of, frozenset({ITEMS, FLAGS, CLOCK}))
    return item_page(knowledge, given, size, after).as_json()


def beliefs_as_of_job(graph: GraphPort, as_of: int, **page: Any) -> dict[str, Any]:
    """The page beliefs(filter, orderBy, first, after) shows at `as_of` (a checked position): every belief
    created by then, as its history says it was then, through beliefs.as_of.belief_page(**page); its
    fields as plain JSON ({rows: [[key, properties]], more, total})."""
    from graph_service.beliefs.as_of import belief_page, beliefs_then

    found = belief_page(beliefs_then(graph, as_of), **page)
    return {"rows": [[key, props] for key, props in found.rows], "more": found.more, "total": found.total}


# Each is called as job(graph, **args) in the child and returns plain JSON.
JOBS: dict[str, Callable[..., Any]] = {
    "verify": verify_job,
    "chain_audit": chain_audit_job,
    "rebuild": rebuild_job,
    "redecide": redecide_job,
    "prov": prov_job,
    "fingerprints_as_of": fingerprints_as_of_job,
    "report_as_of": report_as_of_job,
    "snapshot_as_of": snapshot_as_of_job,
    "open_questions_as_of": open_questions_as_of_job,
    "disputes_as_of": disputes_as_of_job,
    "flags_as_of": flags_as_of_job,
    "questions_as_of": questions_as_of_job,
    "unknowns_as_of": unknowns_as_of_job,
    "items_as_of": items_as_of_job,
    "beliefs_as_of": beliefs_as_of_job,
}


class ApartFailed(RuntimeError):
    """The process of its own ended without an answer (it crashed, or could not reach the store)."""


def run_apart(graph: GraphPort, job: str, **args: Any) -> Any:
    """`job(graph, **args)` done by a Python process of its own (one of graph_service.jobs.apart_workers.POOL, kept
    between jobs) on the store `graph` is connected to: its answer. On the board of work running (`RUNNING`)
    while it runs, with the progress the process reports.

    Raises the UserError the job raised, and ApartFailed, with the process's last words, if it gave no answer."""
    if job not in JOBS:
        raise ValueError(f"no such job {job!r}; the jobs are {', '.join(sorted(JOBS))}")
    asked = json.dumps({"connection": graph.connection(), "job": job, "args": args})
    worker = POOL.take()
    since = worker.said_so_far()
    with RUNNING.doing(job) as report:
        try:
            answer = worker.do(asked, lambda line: report(*json.loads(line)[PROGRESS_KEY]), _is_progress)
        except BaseException:  # interrupted mid-job: the worker's state is unknown
            worker.kill()
            raise
    if answer is None:
        code = worker.process.wait()
        said = worker.last_words(since)
        worker.kill()
        return answer_of(job, code, "", said)
    if json.loads(answer).get(RETIRING_KEY):
        worker.close()
    else:
        POOL.give_back(worker)
    return answer_of(job, 0, answer, "")


def _is_progress(line: str) -> bool:
    return line.startswith('{"' + PROGRESS_KEY + '"')


def answer_of(job: str, exit_code: int, out: str, err: str) -> Any:
    """The value a child's output carries; the UserError it reports, raised; ApartFailed if it has none."""
    lines = out.strip().splitlines()
    if exit_code != 0 or not lines:
        raise ApartFailed(f"the process doing {job} exited {exit_code}: {err.strip()[-2000:]}")
    answer = json.loads(lines[-1])
    if "refused" in answer:
        refused = answer["refused"]
        kind = getattr(errors, refused.get("kind", ""), None)
        if not (isinstance(kind, type) and issubclass(kind, errors.UserError)) or kind is errors.AlreadyWritten:
            kind = errors.UserError  # AlreadyWritten needs its seq, which no job has to report
        raise kind(refused["message"], field=refused.get("field"))
    return answer["value"]


def main() -> int:
    """The worker: for each line on stdin, {connection, job, args} (JSON), do the job and print {"value": ...} or
    {"refused": {kind, message, field}} as one JSON line, after the job's progress lines; with RETIRING_KEY true,
    and then exit, once its peak memory has reached RETIRE_PEAK_KB. Exit 0 at the end of stdin; 1, with the
    traceback on stderr, when a job fails other than by a UserError."""
    from graph_service.storage.open import connect

    global progress
    for line in sys.stdin:
        if not line.strip():
            continue
        asked = json.loads(line)
        job = JOBS[asked["job"]]
        graph = connect(asked["connection"])
        progress = _ProgressLines()
        try:
            try:
                answer: dict[str, Any] = {"value": job(graph, **asked["args"])}
            except errors.UserError as refused:
                answer = {"refused": {"kind": type(refused).__name__, "message": str(refused),
                                      "field": refused.field}}
        except Exception:
            traceback.print_exc()
            return 1
        finally:
            progress = _no_progress
            graph.close()
        retiring = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >= RETIRE_PEAK_KB
        if retiring:
            answer[RETIRING_KEY] = True
        print(json.dumps(answer), flush=True)
        if retiring:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
