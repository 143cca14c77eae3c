"""Run a real Neo4j 5 Community server without Docker: the server's own entry point on Java 17,
its jars fetched from Maven Central by `tools/neo4j/pom.xml`.

Used by `make neo4j` (a server for a person, with Neo4j Browser) and by the test suite (a server
per test session on free loopback ports). It listens on loopback only, with authentication off:
it is a development and test server, not a production deployment (use the official image or
packages for that). No driver is imported here; the Neo4j adapter stays the only module that does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from graph_service.processes import die_with_parent

_REPO_POM = Path(__file__).resolve().parents[2] / "tools" / "neo4j" / "pom.xml"
POM = Path(os.environ.get("GRAPH_SERVICE_NEO4J_POM", _REPO_POM))
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"


class Neo4jUnavailable(RuntimeError):
    """This machine cannot run the local Neo4j server (no Java or Maven, or Maven Central refused)."""


def missing_tools() -> str | None:
    """Why this machine cannot fetch and run the server, or None when it can."""
    lacking = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    return f"{' and '.join(lacking)} not found on PATH" if lacking else None


def resolve_classpath(cache_dir: Path) -> str:
    """The server's class path, resolved from Maven Central by the pom (once; cached beside it)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / "classpath.txt"
    if target.exists() and target.stat().st_mtime >= POM.stat().st_mtime:
        classpath = target.read_text().strip()
        if all(Path(jar).exists() for jar in classpath.split(os.pathsep)):
            return classpath
    problem = missing_tools()
    if problem:
        raise Neo4jUnavailable(problem)
    partial = cache_dir / "classpath.txt.part"
    result = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POM), "dependency:build-classpath", f"-Dmdep.outputFile={partial}"],
        capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise Neo4jUnavailable(f"Maven could not fetch the Neo4j server:\n{(result.stdout + result.stderr)[-2000:]}")
    partial.replace(target)  # only a complete resolution is ever cached
    return target.read_text().strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalNeo4j:
    """A Neo4j Community server on a data folder of its own, on loopback ports."""

    def __init__(self, home: str | Path, *, bolt_port: int = 7687, http_port: int | None = 7474,
                 heap: str = "1g", page_cache: str = "512m", start_timeout: float = 180.0,
                 die_with_parent: bool = True) -> None:
        self.home = Path(home).resolve()
        self.bolt_port = bolt_port
        self.http_port = http_port or free_port()
        self.heap = heap
        self.page_cache = page_cache
        self.start_timeout = start_timeout
        self.die_with_parent = die_with_parent
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"

    def _write_config(self) -> Path:
        conf = self.home / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            # loopback only, for development and tests: any credentials are accepted
            "dbms.security.auth_enabled": "false",
            "server.directories.data": str(self.home / "data"),
            "server.directories.logs": str(self.home / "logs"),
            "server.directories.run": str(self.home / "run"),
            "server.directories.import": str(self.home / "import"),
            "server.memory.heap.initial_size": "256m",
            "server.memory.heap.max_size": self.heap,
            "server.memory.pagecache.size": self.page_cache,
            "dbms.usage_report.enabled": "false",
            "db.logs.query.enabled": "OFF",
        }
        (conf / "neo4j.conf").write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
        return conf

    def start(self) -> LocalNeo4j:
        """Start the server and wait until its HTTP discovery answers and Bolt accepts connections."""
        classpath = resolve_classpath(POM.parent / "target")
        conf = self._write_config()
        (self.home / "logs").mkdir(exist_ok=True)
        argfile = self.home / "java.args"  # the class path is too long for a readable command line
        argfile.write_text(f"-cp {classpath}\n")
        java = shutil.which("java")
        if java is None:
            raise Neo4jUnavailable("java not found on PATH")
        args = [java, f"-Xmx{self.heap}", "-XX:+UseG1GC", "-Dfile.encoding=UTF-8", f"@{argfile}", ENTRY_POINT,
                f"--home-dir={self.home}", f"--config-dir={conf}"]
        output = open(self.home / "logs" / "console.log", "ab")  # noqa: SIM115 (the child owns it)
        try:
            self._process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=die_with_parent if self.die_with_parent else None,
            )
        finally:
            output.close()
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"Neo4j exited with code {self._process.returncode}:\n{self.log_tail()}")
            if self._http_ready() and self._bolt_open():
                return
            time.sleep(0.2)
        raise RuntimeError(f"Neo4j did not start within {self.start_timeout}s:\n{self.log_tail()}")

    def _http_ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/", timeout=2) as response:
                return "neo4j_version" in json.loads(response.read())
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def _bolt_open(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.bolt_port), timeout=2):
            return True
        return False

    def log_tail(self, chars: int = 3000) -> str:
        text = ""
        for name in ("console.log", "neo4j.log"):
            path = self.home / "logs" / name
            if path.exists():
                text += f"--- {name}\n{path.read_text(errors='replace')[-chars:]}"
        return text

    def stop(self, timeout: float = 60.0) -> None:
        """Stop cleanly (SIGTERM: Neo4j checkpoints and exits), killing it only if it hangs."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def kill(self) -> None:
        """kill -9, for crash tests."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def __enter__(self) -> LocalNeo4j:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """`make neo4j`: run a server in the foreground until Ctrl-C, then stop it cleanly."""
    parser = argparse.ArgumentParser(prog="python -m graph_service.storage.neo4j_server",
                                     description="Run a local Neo4j 5 Community server (from Maven Central).")
    parser.add_argument("--home", default=os.environ.get("GRAPH_SERVICE_NEO4J_HOME", "neo4j-data"),
                        help="the server's folder: data, logs and configuration (default: neo4j-data)")
    parser.add_argument("--bolt-port", type=int, default=7687)
    parser.add_argument("--http-port", type=int, default=7474)
    args = parser.parse_args(argv)
    server = LocalNeo4j(args.home, bolt_port=args.bolt_port, http_port=args.http_port, die_with_parent=True)
    print(f"starting Neo4j in {server.home} (the first start fetches it from Maven Central) ...", flush=True)
    try:
        server.start()
    except (Neo4jUnavailable, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Neo4j is up: {server.uri}  (Neo4j Browser: {server.browser_url}, no authentication)\n"
          f"serve the API on it:  NEO4J_URI={server.uri} make serve\n"
          "Ctrl-C stops it.", flush=True)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopping and server.running:
        time.sleep(0.2)
    print("stopping Neo4j ...", flush=True)
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
