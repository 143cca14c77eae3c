"""The API's whole-journal work runs in a process of its own (graph_service.jobs.apart), on every backend: verify's
report equals the in-process check, a tampered store is found there, and the service takes the verdict;
rebuild, redecide and a fingerprint as of a position answer what the in-process functions answer; a
refusal in the child comes back as the same error."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.testclient import TestClient

from benchmarks.service_shape import LOADER, mix
from graph_service.api.app import create_app
from graph_service.errors import JournalBroken, NotFound
from graph_service.fingerprint_as_of import fingerprints_as_of
from graph_service.jobs import apart, apart_workers
from graph_service.jobs.verifying import FullReport, verify_in_child
from graph_service.jobs.work_board import WorkBoard
from graph_service.journal.notes import plan_note
from graph_service.knowledge.replay import given_facts, redecide
from graph_service.service import Service
from graph_service.state import replay
from graph_service.storage.port import GraphPort
from tests.backends import Backend
from tests.integration.graphql_client import gql


def test_the_child_reports_what_the_in_process_check_reports(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        for i in range(5):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        apart, here = service.verify_apart(), service.verify()
        assert apart.ok and apart == here
        # The graph's fingerprint is read to report a difference only; the graph's own, read whole, is the replay's.
        assert apart.chain.checked == 5 and apart.graph_fingerprint is None
        assert apart.replay_fingerprint == service.graph_fingerprint()
        assert FullReport.from_json(apart.as_json()) == apart
    finally:
        service.close()


def test_a_tampered_entry_is_found_apart_and_writes_are_refused_until_repaired(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        for i in range(3):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        backend.raw(service.graph, "MATCH (e:Entry {seq: 2}) SET e.payload = replace(e.payload, 'note 1', 'note 9')")
        report = service.verify_apart()
        assert not report.ok and report.chain.first_bad == 2, report
        with pytest.raises(JournalBroken, match="position 2"):
            service.journal.write("ann", lambda: plan_note("after the tampering"))
        backend.raw(service.graph, "MATCH (e:Entry {seq: 2}) SET e.payload = replace(e.payload, 'note 9', 'note 1')")
        assert service.verify_apart().ok
        assert service.journal.write("ann", lambda: plan_note("after the repair")).entry.seq == 4
    finally:
        service.close()


def test_a_child_that_cannot_connect_says_so() -> None:
    class Nowhere:
        def connection(self) -> dict[str, str]:
            return {"backend": "falkordb", "socket": "/nonexistent/falkordb.sock", "graph": "graph_service"}

    with pytest.raises(RuntimeError, match="the process doing verify exited 1"):
        verify_in_child(Nowhere())  # type: ignore[arg-type]


def test_rebuild_redecide_and_a_past_fingerprint_apart_answer_what_they_answer_here(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        for plan in itertools.islice(mix(service, 120, 3), 120):
            service.journal.write(LOADER, plan)
        entries = list(service.journal.entries_after(0))
        skipped = sorted(service.state.knowledge.items)[:2]
        for upto, skip in ((None, []), (60, []), (None, skipped)):
            here = replay(entries, upto=upto, skip=skip).fingerprints()
            assert apart.run_apart(service.graph, "rebuild", upto=upto, skip=skip) == here
        assert apart.run_apart(service.graph, "fingerprints_as_of", as_of=70) == fingerprints_as_of(service.graph, 70)
        changed, justified = redecide(entries, skipped, given_facts)
        assert apart.run_apart(service.graph, "redecide", retracted=skipped) == [changed, justified]
    finally:
        service.close()


def test_a_refusal_in_the_child_comes_back_as_the_same_error(backend: Backend, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # The child's side run here (apart.main, on a real connection), its output read by the parent's side.
    def refusing(graph: object, id: str) -> None:
        raise NotFound(f"id: no item {id!r}", field="id")

    service = Service.open(backend.whole_state_settings())
    try:
        monkeypatch.setitem(apart.JOBS, "refusing", refusing)
        asked = {"connection": service.graph.connection(), "job": "refusing", "args": {"id": "k-nothing"}}
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(asked)))
        assert apart.main() == 0
        out = capsys.readouterr().out
        with pytest.raises(NotFound, match="no item 'k-nothing'") as refused:
            apart.answer_of("refusing", 0, out, "")
        assert refused.value.field == "id"
    finally:
        service.close()


def test_a_worker_does_the_next_job_too_and_one_that_failed_is_not_kept(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        for i in range(5):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        apart_workers.POOL.close_idle()
        first = apart.run_apart(service.graph, "fingerprints_as_of", as_of=3)
        (kept,) = apart_workers.POOL.idle()
        assert apart.run_apart(service.graph, "fingerprints_as_of", as_of=3) == first
        assert apart_workers.POOL.idle() == [kept]  # the same process did it, and waits again
        with pytest.raises(NotFound):  # a refusal is an answer: the worker stays
            apart.run_apart(service.graph, "prov", node="k-nothing", format="prov-json", upto=5)
        assert apart_workers.POOL.idle() == [kept]

        class Nowhere:
            def connection(self) -> dict[str, str]:
                return {"backend": "falkordb", "socket": "/nonexistent/falkordb.sock", "graph": "graph_service"}

        with pytest.raises(apart.ApartFailed, match="exited 1"):
            apart.run_apart(Nowhere(), "verify")  # type: ignore[arg-type]
        assert apart_workers.POOL.idle() == []  # it took the kept worker, which exited
    finally:
        service.close()


def test_a_worker_past_its_memory_bound_says_so_and_exits_after_its_answer(
        backend: Backend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The worker's side run here (apart.main): two jobs on its stdin, a bound every process is past.
    service = Service.open(backend.whole_state_settings())
    try:
        service.journal.write("ann", lambda: plan_note("one"))
        asked = json.dumps({"connection": service.graph.connection(), "job": "fingerprints_as_of",
                            "args": {"as_of": 1}})
        monkeypatch.setattr(sys, "stdin", io.StringIO(asked + "\n" + asked + "\n"))
        monkeypatch.setattr(apart, "RETIRE_PEAK_KB", 1)
        assert apart.main() == 0
        answers = capsys.readouterr().out.splitlines()
        assert len(answers) == 1 and json.loads(answers[0])[apart.RETIRING_KEY] is True
        assert apart.answer_of("fingerprints_as_of", 0, answers[0], "") == fingerprints_as_of(service.graph, 1)
    finally:
        service.close()


def test_an_unknown_job_is_refused_before_any_process_starts(graph: object) -> None:
    jobs = ("beliefs_as_of, chain_audit, disputes_as_of, fingerprints_as_of, flags_as_of, items_as_of, "
            "open_questions_as_of, prov, questions_as_of, rebuild, redecide, report_as_of, snapshot_as_of, "
            "unknowns_as_of, verify")
    with pytest.raises(ValueError, match=f"no such job 'nothing'; the jobs are {jobs}$"):
        apart.run_apart(graph, "nothing")  # type: ignore[arg-type]


def test_work_apart_is_on_the_board_with_the_progress_the_child_reports(backend: Backend,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, int, int | None, str | None]] = []

    class Watched(WorkBoard):
        @contextmanager
        def doing(self, job: str) -> Iterator[Callable[[int, int | None, str | None], None]]:
            with super().doing(job) as report:
                def watched(done: int, total: int | None, step: str | None = None) -> None:
                    assert [w.job for w in self.running()] == [job]  # on the board while the child reads
                    seen.append((job, done, total, step))
                    report(done, total, step)

                yield watched

    monkeypatch.setattr(apart, "RUNNING", Watched())
    service = Service.open(backend.whole_state_settings())
    try:
        for plan in itertools.islice(mix(service, 30, 5), 30):  # entries that make nodes and edges to compare
            service.journal.write(LOADER, plan)
        assert service.verify_apart().ok
        # Every entry read, then the graph compared, counting its nodes and edges; never the same line twice.
        reading = [line for line in seen if line[3] is None]
        comparing = [line for line in seen if line[3] == apart.COMPARING]
        assert seen == reading + comparing and reading[-1] == ("verify", 30, 30, None)
        assert comparing[0] == ("verify", 0, None, apart.COMPARING)
        compared = comparing[-1][1]
        assert compared > 30 and comparing[-1] == ("verify", compared, compared, apart.COMPARING)
        for lines in (reading, comparing):
            assert [done for _, done, _, _ in lines] == sorted(done for _, done, _, _ in lines)
        assert len(set(seen)) == len(seen)
        seen.clear()
        apart.run_apart(service.graph, "rebuild", upto=20, skip=[])
        assert seen[-1] == ("rebuild", 20, 20, None) and len(set(seen)) == len(seen)
        assert apart.RUNNING.running() == []
    finally:
        service.close()


def test_long_work_shows_what_runs_to_an_admin(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        client = TestClient(create_app(service.settings, service=service))
        asked = "{ longWork { job done total step startedAt } }"
        assert gql(client, asked) == {"data": {"longWork": []}}
        with apart.RUNNING.doing("verify") as report:
            report(3, 10, None)
            (shown,) = gql(client, asked)["data"]["longWork"]
            report(10, 10, apart.COMPARING)
            (compared,) = gql(client, asked)["data"]["longWork"]
        assert (shown["job"], shown["done"], shown["total"], shown["step"]) == ("verify", 3, 10, None)
        assert shown["startedAt"] > 0 and compared == {**shown, "done": 10, "step": apart.COMPARING}
        assert gql(client, asked) == {"data": {"longWork": []}}
    finally:
        service.close()


def test_a_child_that_dies_before_it_reads_its_job_says_so(graph: GraphPort, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its job (2 MB here) fills the pipe it never reads: the write meets a closed pipe, and its last words come back.
    popen = subprocess.Popen

    def dying(args: list[str], **options: Any) -> subprocess.Popen[str]:
        return popen([sys.executable, "-c", "import sys; sys.stderr.write('gone before reading'); sys.exit(3)"],
                     **options)

    apart_workers.POOL.close_idle()  # so that the job starts a process, the dying one
    monkeypatch.setattr(subprocess, "Popen", dying)
    with pytest.raises(apart.ApartFailed, match="exited 3: gone before reading"):
        apart.run_apart(graph, "rebuild", upto=None, skip=["x" * 2_000_000])
    assert apart.RUNNING.running() == []


def test_start_verify_answers_at_once_and_verify_run_reads_what_it_found(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        for i in range(3):
            service.journal.write("ann", lambda i=i: plan_note(f"note {i}"))
        client = TestClient(create_app(service.settings, service=service))
        asked = "{ verifyRun { running startedAt finishedAt error verification { ok checked firstBad } } }"
        assert gql(client, asked) == {"data": {"verifyRun": None}}

        def run_to_its_end() -> dict[str, Any]:
            started = gql(client, "{ startVerify { running startedAt finishedAt } }")["data"]["startVerify"]
            assert started["running"] is True and started["finishedAt"] is None
            deadline = time.monotonic() + 120
            while (run := gql(client, asked)["data"]["verifyRun"])["running"]:
                assert time.monotonic() < deadline, "verify never ended"
                time.sleep(0.05)
            assert run["startedAt"] == started["startedAt"] <= run["finishedAt"] and run["error"] is None
            return run["verification"]

        assert run_to_its_end() == {"ok": True, "checked": 3, "firstBad": None}
        # A tampered entry: found in the background, and the service takes the verdict, as verify's.
        backend.raw(service.graph, "MATCH (e:Entry {seq: 2}) SET e.payload = replace(e.payload, 'note 1', 'note 9')")
        assert run_to_its_end() == {"ok": False, "checked": 1, "firstBad": 2}
        with pytest.raises(JournalBroken, match="position 2"):
            service.journal.write("ann", lambda: plan_note("after the tampering"))
    finally:
        service.close()
