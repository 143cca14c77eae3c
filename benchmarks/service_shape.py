"""The service's shape, measured against issue 10's bars: bulk load, start, memory, the cost of a
write and of a read against raw round trips, concurrent writers, verify, and a start after kill -9.

    .venv/bin/python -m benchmarks.service_shape [--sizes 10000 100000] [--requests 2000] [--clients 16]

For each size a store of a realistic mix is bulk-loaded through the public bulk path
(`Journal.write_batch`): facts with premises and shared keys, beliefs with evidence from several
families (some rooted in items), statements, observations and retractions. Then `graph_service serve`
runs on it as `make serve` does and is measured from outside: process start to the first /healthz
answer and to /readyz (the embedded server's load is the phase /healthz reports as `connecting`),
the service's RSS after start and after `--requests` mixed requests, GraphQL round trips against
`{ __typename }`, and writes/s with 1 and `--clients` concurrent clients. Raw round trips go straight
to the serving process's embedded server (a second connection on its socket), interleaved with the
GraphQL ones. Ratios come from one run; the figures are medians.

`--backend neo4j` runs the same on a Neo4j 5 server of its own for each size (graph_service.storage.
neo4j_server, from Maven Central), whose process is then the "server" of the figures: the issue's ratio
bars on Neo4j. There, "the embedded server loaded by" is the connection to Neo4j, and the embedded server's
restarts are not counted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph_service import processes
from graph_service.config import DEFAULT_MODE, KNOWLEDGE_MODES, Settings
from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.service import Service
from graph_service.statements import OP_SAY
from graph_service.storage.falkordb_adapter import FalkorDBGraph
from graph_service.storage.neo4j_adapter import Neo4jGraph
from graph_service.storage.neo4j_server import LocalNeo4j
from graph_service.storage.neo4j_server import free_port as neo4j_free_port
from graph_service.storage.port import GraphPort
from graph_service.stream import OP_DECLARE, OP_OBSERVE

ROOT = Path(__file__).resolve().parents[1]
LOADER = "loader"
VERIFY_TIMEOUT = 3_600.0  # seconds: a verify replays the whole journal
DOMAINS = ("knowledge", "beliefs", "stream", "questions")  # Settings' fields that say where a state is held
# The mix's planners read the whole state (`mix`): a store is built with every domain's state in memory. What the
# graph holds is the same either way.
LOADING = {domain: "memory" for domain in DOMAINS}
NEO4J_USER = NEO4J_PASSWORD = "neo4j"  # the local server runs with authentication off (neo4j_server)


# ---- the realistic mix -------------------------------------------------------------------------


def mix(service: Service, n: int, seed: int) -> Iterator[Callable[[], Draft]]:
    """n plans in a deterministic mix; each is planned against the state the ones before it made
    (one the store refuses, e.g. a fact that would rest on itself, becomes a note). The service holds every
    domain's state in memory (`LOADING`): the planners read it directly."""
    for plan in _mix(service, n, seed):
        yield lambda plan=plan: _or_note(plan)


def _or_note(plan: Callable[[], Draft]) -> Draft:
    try:
        return plan()
    except UserError as refused:
        return plan_note(f"refused: {refused}")


def _mix(service: Service, n: int, seed: int) -> Iterator[Callable[[], Draft]]:
    rng = random.Random(seed)
    state = service.state
    items: list[str] = []
    observers = [f"cam-{i}" for i in range(8)]
    for o in observers:
        yield lambda o=o: state.stream.plan(OP_DECLARE, {"observer": o, "wordless": False})
    made = len(observers)
    tick = 0
    while made < n:
        made += 1
        roll = rng.random()
        tick += 1
        if roll < 0.35 or len(items) < 4:
            subject = f"thing-{rng.randrange(max(1, made // 20))}"  # about 20 entries per subject: shared keys
            raw: dict[str, Any] = {"kind": "fact", "body": {"s": subject, "r": rng.choice(("colour", "owner")),
                                                            "o": f"v{rng.randrange(4)}"},
                                   "source": rng.choice(("person", "outcome", "spec"))}
            if rng.random() < 0.4:
                raw["derived_from"] = rng.sample(items[-50:], min(2, len(items[-50:])))

            def plan_fact(raw: dict[str, Any] = raw) -> Draft:
                draft = planning.plan_add(state.knowledge, raw, by=LOADER)
                items.append(_item_id(raw))
                return draft

            yield plan_fact
        elif roll < 0.55:
            rows = [{"weight": round(rng.uniform(0.2, 0.9), 3), "family": f"family-{rng.randrange(12)}"}
                    for _ in range(rng.randint(1, 3))]
            present = [i for i in items[-20:] if state.present("item", i)]
            if present and rng.random() < 0.5:
                rows.append({"weight": 0.6, "family": "rooted", "root_kind": "item", "root_ids": [present[-1]]})
            payload = {"proposition": f"claim {made}", "subject": f"thing-{rng.randrange(50)}", "evidence": rows}

            def plan_belief(payload: dict[str, Any] = payload) -> Draft:
                return state.beliefs.plan("belief.create", payload)

            yield plan_belief
        elif roll < 0.70:
            speaker = rng.choice(observers)
            text = rng.choice(("the deploy failed", "the door is open", "Ann said that the pump is on"))
            payload = {"text": text, "speaker": speaker, "tick": tick, "to": None, "extra_claims": [],
                       "credibility": 1.0}
            yield lambda payload=payload: state.statements.plan(OP_SAY, payload)
        elif roll < 0.95:
            payload = {"observer": rng.choice(observers), "tick": tick, "kind": "seen",
                       "subject": f"thing-{rng.randrange(200)}", "magnitude": 0, "weight": None}
            yield lambda payload=payload: state.stream.plan(OP_OBSERVE, payload)
        else:
            live = [i for i in items[-200:] if state.present("item", i)]
            if not live:
                continue
            target = rng.choice(live)
            yield lambda target=target: planning.plan_retract(state.knowledge, target, "benchmark")


def _item_id(raw: dict[str, Any]) -> str:
    from graph_service.knowledge.items import content_id

    return content_id(raw["kind"], raw["body"], raw.get("scope") or {})


# ---- measuring a served process ----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system processor time a running process has used so far."""
    used = processes.cpu_seconds(pid)
    if used is None:
        raise RuntimeError(f"process {pid} is gone")
    return used


def own_cpu_seconds() -> float:
    """This process's processor time (the benchmark's clients, or the bulk load's planning)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def probe(url: str, timeout: float = 5) -> tuple[int, dict[str, Any]] | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"{}")
    except OSError:
        return None


def post(base: str, query: str, variables: dict[str, Any] | None = None, timeout: float = 120) -> dict[str, Any]:
    request = urllib.request.Request(f"{base}/graphql", data=json.dumps({"query": query, "variables": variables})
                                     .encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    base: str
    first_health: float
    loaded: float | None  # when /healthz first said the server had loaded (phase past connecting)
    ready: float


def state_env(state: str) -> dict[str, str]:
    """The variables that hold every domain's state where `state` (one of KNOWLEDGE_MODES) says."""
    return {f"GRAPH_SERVICE_{domain.upper()}": state for domain in DOMAINS}


def serve(data: Path, log: Path, workers: int = 1, neo4j: LocalNeo4j | None = None,
          state: str = DEFAULT_MODE) -> Served:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPH_SERVICE_"))}
    env.update(GRAPH_SERVICE_DATA=str(data), GRAPH_SERVICE_PORT=str(port), **state_env(state))
    if neo4j is not None:
        env.update(NEO4J_URI=neo4j.uri, NEO4J_USER=NEO4J_USER, NEO4J_PASSWORD=NEO4J_PASSWORD)
    started = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "graph_service", "serve", "--workers", str(workers)],
                                cwd=data.parent, env=env, stdout=subprocess.DEVNULL, stderr=out)
    base = f"http://127.0.0.1:{port}"
    first = loaded = None
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        health = probe(f"{base}/healthz", 2)
        now = time.perf_counter() - started
        if health is not None and first is None:
            first = now
        if health is not None and loaded is None:
            service = health[1].get("service")
            # loading and starting: the API's imports (graph_service.api.early); connecting: the server's load
            if not isinstance(service, dict) or service.get("phase") not in ("loading", "starting", "connecting"):
                loaded = now
        ready = probe(f"{base}/readyz", 2)
        if ready is not None and ready[0] == 200:
            return Served(proc, base, first or now, loaded, time.perf_counter() - started)
        time.sleep(0.01)


def stop(served: Served) -> None:
    served.proc.terminate()
    served.proc.wait(timeout=300)


# `graph_service verify` in a process that says its own peak RSS last on stderr ("own peak RSS <MB> MB").
VERIFY_OWN_PEAK = """
import resource, sys
from graph_service.cli import main
code = main(["verify"])
print(f"own peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MB", file=sys.stderr)
sys.exit(code)
"""


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


@dataclass
class Figures:
    size: int
    lines: list[str] = field(default_factory=list)
    bars: list[tuple[str, bool]] = field(default_factory=list)

    def say(self, text: str) -> None:
        self.lines.append(text)
        print(text, file=sys.stderr, flush=True)

    def bar(self, text: str, met: bool) -> None:
        self.bars.append((text, met))
        self.say(f"  bar: {text}: {'met' if met else 'NOT MET'}")


def measure(size: int, args: argparse.Namespace, root: Path, neo4j: LocalNeo4j | None = None) -> Figures:
    fig = Figures(size)
    data = root / f"store-{size}" / "data"
    data.parent.mkdir(parents=True)
    settings = (Settings(data_dir=data, **LOADING) if neo4j is None else
                Settings(data_dir=data, neo4j_uri=neo4j.uri, neo4j_user=NEO4J_USER, neo4j_password=NEO4J_PASSWORD,
                         **LOADING))
    # 1. the bulk load, in this process
    service = Service.open(settings)
    try:
        server_pid = _server_pid(data, neo4j)
        before = (own_cpu_seconds(), cpu_seconds(server_pid))
        started = time.perf_counter()
        written = service.journal.write_batch(LOADER, mix(service, size, args.seed), batch_size=500)
        seconds = time.perf_counter() - started
        own, server = (own_cpu_seconds() - before[0], cpu_seconds(server_pid) - before[1])
    finally:
        service.close()
    fig.say(f"{size:,} entries: loaded {written:,} through Journal.write_batch in {seconds:.1f} s "
            f"({written / seconds:,.0f} entries/s)")
    fig.say(f"    processor time per entry: {own / written * 1e3:.2f} ms planning, applying and sealing here, "
            f"{server / written * 1e3:.2f} ms in the {'embedded server' if neo4j is None else 'Neo4j server'}")
    fig.bar("bulk load >= 5,000 entries/s", written / seconds >= 5_000)
    # 2. a clean start
    served = serve(data, root / f"serve-{size}.log", neo4j=neo4j, state=args.state)
    loaded = served.loaded if served.loaded is not None else served.ready
    fig.say(f"  start: /healthz answered {served.first_health:.2f} s after the process started; the embedded "
            f"server loaded by {loaded:.2f} s; /readyz ready at {served.ready:.2f} s (the service's own share "
            f"{served.ready - loaded:.2f} s)")
    fig.bar("/healthz within 1 s of start", served.first_health <= 1.0)
    fig.bar("the service's own share of the start <= 1 s", served.ready - loaded <= 1.0)
    rss_start = rss_mb(served.proc.pid)
    try:
        raw: GraphPort = (FalkorDBGraph(socket_path=data / "falkordb.sock") if neo4j is None else
                          Neo4jGraph(neo4j.uri, NEO4J_USER, NEO4J_PASSWORD))
        try:
            _round_trips(fig, served.base, raw, args)
        finally:
            raw.close()
        rss_after = rss_mb(served.proc.pid)
        fig.say(f"  service RSS: {rss_start:.0f} MB after start, {rss_after:.0f} MB after {args.requests:,} "
                f"mixed requests")
        fig.rss = (rss_start, rss_after)  # type: ignore[attr-defined]
        _concurrency(fig, served.base, args.clients, args.writes, served.proc.pid, _server_pid(data, neo4j))
        _verify_while_serving(fig, served.base)
        health = probe(f"{served.base}/healthz")
        restarts = health[1].get("restarts") if health else None
        if neo4j is None:  # Neo4j is not the service's to restart
            fig.say(f"  embedded server restarts while serving: {restarts}")
            fig.bar("the embedded server never restarted while serving", restarts == 0)
    finally:
        stop(served)
    # 3. verify from the command line: time and the verifying process's own peak RSS. Its own: the children's
    # peak this process sees is the largest of the command and the embedded server the command starts.
    started = time.perf_counter()
    env = {**os.environ, "GRAPH_SERVICE_DATA": str(data)}
    if neo4j is not None:
        env.update(NEO4J_URI=neo4j.uri, NEO4J_USER=NEO4J_USER, NEO4J_PASSWORD=NEO4J_PASSWORD)
    done = subprocess.run([sys.executable, "-c", VERIFY_OWN_PEAK], cwd=data.parent, env=env,
                          capture_output=True, text=True)
    verify_seconds = time.perf_counter() - started
    peak_mb = float(done.stderr.strip().splitlines()[-1].split()[-2]) if done.stderr.strip() else float("nan")
    fig.say(f"  graph_service verify: exit {done.returncode} in {verify_seconds:.1f} s, the verifying process's "
            f"own peak RSS {peak_mb:.0f} MB")
    fig.bar("verify peak RSS <= 1 GB", peak_mb <= 1024 and done.returncode == 0)
    # 4. ready after a kill -9, against a clean start: --kill-rounds of each, alternated, medians (one pair of
    # starts a second or two long moved from 1.02x to 1.21x between runs of the same code on this machine)
    clean, killed = [], []
    for round_no in range(args.kill_rounds):
        served = serve(data, root / f"serve-{size}-again-{round_no}.log", neo4j=neo4j, state=args.state)
        clean.append(served.ready)
        served.proc.send_signal(signal.SIGKILL)
        served.proc.wait()
        if neo4j is None:
            _wait_server_gone(data)
        served = serve(data, root / f"serve-{size}-killed-{round_no}.log", neo4j=neo4j, state=args.state)
        killed.append(served.ready)
        stop(served)
    ratio = statistics.median(killed) / statistics.median(clean)
    pairs = ", ".join(f"{c:.2f}/{k:.2f}" for c, k in zip(clean, killed, strict=True))
    fig.say(f"  ready after kill -9: {statistics.median(killed):.2f} s (clean start {statistics.median(clean):.2f} s; "
            f"medians of {args.kill_rounds}, alternated, clean/killed: {pairs}): {ratio:.2f}x")
    fig.bar("ready after kill -9 within 1.2x of a clean start", ratio <= 1.2)
    # 5. several worker processes (serve --workers)
    _workers(fig, data, root, args, neo4j)
    return fig


def _server_pid(data: Path, neo4j: LocalNeo4j | None) -> int:
    """The database server's process: the embedded FalkorDB serving `data`, or the Neo4j server."""
    pid = int((data / "falkordb.pid").read_text()) if neo4j is None else neo4j.pid
    if pid is None:
        raise RuntimeError("the Neo4j server is not running")
    return pid


def ready_pids(base: str, wanted: int, timeout: float = 600) -> set[int]:
    """The pids of `wanted` worker processes that answer /healthz ready, asked from several threads."""
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < wanted and time.monotonic() < deadline:
        def ask(_: int) -> None:
            answer = probe(f"{base}/healthz", 5)
            if answer is not None and "pid" in answer[1]:
                seen.add(answer[1]["pid"])

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(ask, range(64)))
    if len(seen) < wanted:
        raise RuntimeError(f"only {len(seen)} of {wanted} workers became ready")
    return seen


def _workers(fig: Figures, data: Path, root: Path, args: argparse.Namespace, neo4j: LocalNeo4j | None) -> None:
    """Reads/s and writes/s from `args.clients` clients through 1 worker process and through 2 (1, 2, 1)."""
    def rates(workers: int, round_no: int) -> tuple[float, float]:
        served = serve(data, root / f"serve-workers-{workers}-{round_no}.log", workers, neo4j, args.state)
        try:
            ready_pids(served.base, workers)
            beliefs = [e["node"]["id"] for e in post(served.base, "{ beliefs(first: 100) { edges { node { id } } } }")
                       ["data"]["beliefs"]["edges"]]
            items = [e["node"]["id"] for e in post(served.base, "{ items(first: 100) { edges { node { id } } } }")
                     ["data"]["items"]["edges"]]

            def read(i: int) -> None:
                if i % 2:
                    post(served.base, 'query($b: String!) { belief(id: $b) { id status confidence evidence { id '
                                      'weight } families { name } } }', {"b": beliefs[i % len(beliefs)]})
                else:
                    post(served.base, 'query($i: String!) { item(id: $i) { id status support premises } }',
                         {"i": items[i % len(items)]})

            def write(i: int) -> None:
                post(served.base, 'mutation($t: String!) { note(text: $t) { seq } }', {"t": f"w{workers}-{i}"})

            out = []
            for work, count in ((read, args.reads), (write, args.writes)):
                with ThreadPoolExecutor(args.clients) as pool:
                    started = time.perf_counter()
                    list(pool.map(work, range(count)))
                    out.append(count / (time.perf_counter() - started))
            return out[0], out[1]
        finally:
            stop(served)

    one, two, one_again = rates(1, 1), rates(2, 1), rates(1, 2)
    reads_one, writes_one = statistics.mean((one[0], one_again[0])), statistics.mean((one[1], one_again[1]))
    fig.say(f"  {args.clients} clients through serve --workers: reads/s {reads_one:.0f} with 1 worker (before and "
            f"after: {one[0]:.0f}, {one_again[0]:.0f}), {two[0]:.0f} with 2: {two[0] / reads_one:.2f}x; writes/s "
            f"{writes_one:.0f} with 1 ({one[1]:.0f}, {one_again[1]:.0f}), {two[1]:.0f} with 2: "
            f"{two[1] / writes_one:.2f}x")
    fig.bar("reads/s with 2 workers >= 1.6x with 1", two[0] >= 1.6 * reads_one)


def _wait_server_gone(data: Path) -> None:
    # The embedded server dies with the service (PR_SET_PDEATHSIG); its lock goes with it.
    pidfile = data / "falkordb.pid"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = pidfile.read_text().strip() if pidfile.exists() else ""
        if not text or not Path(f"/proc/{text}").exists():
            return
        time.sleep(0.05)


def _round_trips(fig: Figures, base: str, raw: GraphPort, args: argparse.Namespace) -> None:
    """GraphQL note and belief read against `{ __typename }` and raw round trips, interleaved."""
    belief = post(base, 'mutation { createBelief(proposition: "the bench holds", evidence: [{weight: 0.5, '
                        'family: "bench"}]) { belief { id } } }')["data"]["createBelief"]["belief"]["id"]
    typename, note, read, raw_read, raw_write = [], [], [], [], []
    for i in range(args.requests // 4):
        t0 = time.perf_counter()
        post(base, "{ __typename }")
        t1 = time.perf_counter()
        post(base, 'mutation($t: String!) { note(text: $t) { seq } }', {"t": f"bench {i}"})
        t2 = time.perf_counter()
        post(base, 'query($b: String!) { belief(id: $b) { id status confidence evidence { id weight } '
                   'families { name } } }', {"b": belief})
        t3 = time.perf_counter()
        raw.run("head_read")
        t4 = time.perf_counter()
        raw.run("bench_raw_write", {"id": f"probe-{i % 100}", "at": i})
        t5 = time.perf_counter()
        typename.append(t1 - t0)
        note.append(t2 - t1)
        read.append(t3 - t2)
        raw_read.append(t4 - t3)
        raw_write.append(t5 - t4)
        # the other half of the requests: a mix of writes and reads the service sees in use
        post(base, "{ beliefs(first: 20) { edges { node { id confidence } } } }")
    fig.say(f"  round trips (medians): {{ __typename }} {median_ms(typename):.2f} ms, note {median_ms(note):.2f} "
            f"ms, belief read {median_ms(read):.2f} ms; raw one-node write {median_ms(raw_write):.2f} ms, raw "
            f"read {median_ms(raw_read):.2f} ms")
    fig.bar("a journaled write over GraphQL <= { __typename } + 3x the raw one-node write",
            median_ms(note) <= median_ms(typename) + 3 * median_ms(raw_write))
    fig.bar("a belief read over GraphQL <= { __typename } + 3 raw reads",
            median_ms(read) <= median_ms(typename) + 3 * median_ms(raw_read))


def _concurrency(fig: Figures, base: str, clients: int, writes: int, service_pid: int, server_pid: int) -> None:
    def rate(n_clients: int) -> float:
        per = max(1, writes // n_clients)

        def client(k: int) -> None:
            for i in range(per):
                post(base, 'mutation($t: String!) { note(text: $t) { seq } }', {"t": f"c{n_clients}-{k}-{i}"})

        threads = [threading.Thread(target=client, args=(k,)) for k in range(n_clients)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return per * n_clients / (time.perf_counter() - started)

    def cores_busy(n_clients: int) -> tuple[float, float]:
        """writes/s with n clients, and the processor time the service, its server and the clients used
        per second of it (cores kept busy)."""
        pids = (service_pid, server_pid)
        before = [cpu_seconds(p) for p in pids] + [own_cpu_seconds()]
        started = time.perf_counter()
        per_second = rate(n_clients)
        wall = time.perf_counter() - started
        after = [cpu_seconds(p) for p in pids] + [own_cpu_seconds()]
        return per_second, sum(b - a for a, b in zip(before, after, strict=True)) / wall

    (one, busy_one), (many, busy_many), (one_again, _) = cores_busy(1), cores_busy(clients), cores_busy(1)
    baseline = statistics.mean((one, one_again))
    fig.say(f"  writes/s: {baseline:.0f} with 1 client (before and after: {one:.0f}, {one_again:.0f}), "
            f"{many:.0f} with {clients}: {many / baseline:.2f}x")
    # One client already keeps `busy_one` cores working (service + server + client, each waiting on the
    # others): with every core busy the rate can grow at most cores / busy_one times on this machine.
    ceiling = (os.cpu_count() or 1) / busy_one
    fig.say(f"    cores kept busy: {busy_one:.2f} with 1 client, {busy_many:.2f} with {clients} (of "
            f"{os.cpu_count()}); the most {clients} clients could reach here is {ceiling:.2f}x")
    fig.bar(f"writes/s with {clients} clients >= 3x with 1", many >= 3 * baseline)


def healthz_while(base: str, query: str, variables: dict[str, Any] | None = None,
                  timeout: float = VERIFY_TIMEOUT) -> tuple[float, list[float], dict[str, Any] | None]:
    """POST `query` to the service at `base` and ask /healthz every 10 ms until it answers: its seconds,
    every /healthz latency meanwhile (seconds), and its answer (None if it gave none)."""
    done = threading.Event()
    answers: list[dict[str, Any]] = []

    def ask() -> None:
        try:
            answers.append(post(base, query, variables, timeout=timeout))
        finally:
            done.set()

    thread = threading.Thread(target=ask)
    started = time.perf_counter()
    thread.start()
    health: list[float] = []
    while not done.is_set():
        t0 = time.perf_counter()
        probe(f"{base}/healthz", 30)
        health.append(time.perf_counter() - t0)
        time.sleep(0.01)
    thread.join()
    return time.perf_counter() - started, health, answers[0] if answers else None


def _verify_while_serving(fig: Figures, base: str) -> None:
    """/healthz while a verify runs in the same service (admin: the service runs open here)."""
    seconds, health, answer = healthz_while(base, "{ verify { ok projectionOk } }")
    answers = [] if answer is None else [answer]
    ordered = sorted(health) or [float("nan")]
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3
    ok = bool(answers) and answers[0].get("data", {}).get("verify") == {"ok": True, "projectionOk": True}
    fig.say(f"  verify over GraphQL: {'ok' if ok else answers} in {seconds:.1f} s; /healthz p99 {p99:.1f} ms over "
            f"{len(health)} probes meanwhile")
    fig.bar("/healthz p99 <= 50 ms while verify runs", p99 <= 50 and ok)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--requests", type=int, default=2_000, help="mixed requests between the RSS readings")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--writes", type=int, default=800, help="writes per concurrency round")
    parser.add_argument("--reads", type=int, default=2_000, help="reads per round of the workers' comparison")
    parser.add_argument("--kill-rounds", type=int, default=3,
                        help="clean starts and starts after kill -9, alternated, whose medians are compared")
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb",
                        help="falkordb: the embedded server (make serve's); neo4j: a local Neo4j 5 per size")
    parser.add_argument("--state", choices=KNOWLEDGE_MODES, default=DEFAULT_MODE,
                        help="where the served service keeps every domain's state (GRAPH_SERVICE_KNOWLEDGE, _BELIEFS, "
                             "_STREAM and _QUESTIONS): graph (none held), or memory; the bulk load holds it in "
                             "memory either way")
    args = parser.parse_args(argv)
    if args.kill_rounds < 1:
        parser.error(f"--kill-rounds must be at least 1, got {args.kill_rounds}")
    with tempfile.TemporaryDirectory(prefix="service-shape-") as tmp:
        results = []
        for size in args.sizes:
            if args.backend == "falkordb":
                results.append(measure(size, args, Path(tmp)))
                continue
            home = Path(tmp) / f"neo4j-{size}"
            with LocalNeo4j(home, bolt_port=neo4j_free_port(), http_port=None, die_with_parent=True) as neo4j:
                results.append(measure(size, args, Path(tmp), neo4j))
    print(f"service shape (issue 10), {'embedded FalkorDB' if args.backend == 'falkordb' else 'Neo4j 5'} backend, "
          f"every domain's state held in: {args.state}")
    for fig in results:
        print("\n".join(fig.lines))
    if len(results) > 1:
        small, large = results[0], results[-1]
        ratio = large.rss[1] / small.rss[1]  # type: ignore[attr-defined]
        print(f"RSS after requests at {large.size:,} / at {small.size:,}: {ratio:.2f}x "
              f"(bar <= 1.5x: {'met' if ratio <= 1.5 else 'NOT MET'})")
    met = sum(ok for fig in results for _, ok in fig.bars)
    total = sum(len(fig.bars) for fig in results)
    print(f"bars met: {met}/{total}")
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
