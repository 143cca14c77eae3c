"""The command line: serve, verify, checkpoint, fingerprint, rebuild, export, load, bench.

Exit codes: 0 all is well; 1 a problem was found (a broken chain, a graph that differs from its replay,
a benchmark that missed its bar, a failure of the store itself); 2 bad usage (a bad argument, a file
that cannot be read, an id the store does not hold), with nothing written. An error is one line on
stderr, never a traceback. Long work reports progress on stderr from its first second: a bar on a
terminal, otherwise a plain line at least every PLAIN_EVERY seconds.
"""

from __future__ import annotations

import argparse
import json
import logging
import logging.config
import os
import runpy
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

from tqdm import tqdm

from graph_service.config import Settings
from graph_service.errors import StoreFormatError, StoreLocked, UserError
from graph_service.logs import log_config

if TYPE_CHECKING:  # the service (and its drivers) load only for the commands that need them
    from graph_service.jobs.verifying import FullReport
    from graph_service.journal.chain import Entry
    from graph_service.journal.store import Journal, VerifyReport
    from graph_service.service import Service
    from graph_service.tlog.verifier import Checkpoint

log = logging.getLogger(__name__)
T = TypeVar("T")

PLAIN_EVERY = 3.0
"""Seconds between progress lines when stderr is not a terminal (a log, a pipe, CI)."""
OPEN_QUIET = 1.0
"""Seconds opening the store may take before its replay of the journal shows progress."""
EXPORT_FORMATS = ("journal", "prov-json", "prov-n", "prov-o")
BENCHMARKS = "benchmarks"


class ProblemFound(Exception):
    """The command ran and found something wrong with the store (exit 1); the message says what."""


# ---- progress ------------------------------------------------------------------------------------


class _Lines:
    """A stream for tqdm that turns its in-place redraws into whole lines, for logs and pipes."""

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._last = ""

    def write(self, text: str) -> int:
        for part in text.replace("\r", "\n").split("\n"):
            line = part.rstrip()
            if line and line != self._last:
                self._target.write(line + "\n")
                self._last = line
        return len(text)

    def flush(self) -> None:
        self._target.flush()


def progress(iterable: Iterable[T] | None = None, *, desc: str, total: int | None = None, unit: str = "entry",
             **options: Any) -> tqdm:
    """A progress display on stderr, shown from the start with rate and ETA: a live bar on a terminal,
    elsewhere a plain line when it starts, then one every PLAIN_EVERY seconds while the work advances
    (never one per item), and a last one when it ends."""
    terminal = sys.stderr.isatty()
    return tqdm(iterable, desc=desc, total=total, unit=unit, disable=False, leave=True,
                file=sys.stderr if terminal else _Lines(sys.stderr), ascii=not terminal,
                mininterval=0.1 if terminal else PLAIN_EVERY, miniters=None if terminal else 1, **options)


def _stage(text: str) -> None:
    """Say on stderr which step of a long command has begun, where no count of it can be kept."""
    print(text, file=sys.stderr, flush=True)


# ---- opening the store ---------------------------------------------------------------------------


class _OpeningProgress:
    """Progress over the replay of the whole journal that opening the store runs before any command.

    A timer thread reads how far the journal has replayed (Journal.seq, advanced entry by entry) and
    shows it once opening has taken OPEN_QUIET seconds.
    """

    def __init__(self) -> None:
        self.journal: Journal | None = None
        self.total: int | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._show, name="opening-progress", daemon=True)

    def __enter__(self) -> _OpeningProgress:
        self._started = time.time()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def watch(self, service: Service) -> None:
        """Follow this service's replay; the total is its stored head (nothing for a new store)."""
        self.total = service.stored_total()
        self.journal = service.journal

    def _show(self) -> None:
        if self._done.wait(OPEN_QUIET):
            return
        every = PLAIN_EVERY if not sys.stderr.isatty() else 0.2
        with progress(desc="open", total=self.total) as bar:
            bar.start_t = self._started  # the rate and ETA count the quiet second too
            while True:
                finished = self._done.wait(every)
                journal = self.journal
                if journal is not None and journal.seq > bar.n:
                    bar.update(journal.seq - bar.n)
                else:
                    bar.refresh()
                if finished:
                    return


@contextmanager
def _service(settings: Settings, *, allow_legacy: bool = False, replay: bool = True) -> Iterator[Service]:
    """The store's service, started (its journal replayed), or with `replay=False` only connected, its schema
    set up and its format checked (Journal.prepare), for a command that reads the journal itself: started all
    the same when its graph lags the journal (a start projects what the graph lacks), with the open's progress."""
    from graph_service.service import Service

    with _OpeningProgress() as opening:
        service = Service.connect(settings)
        try:
            opening.watch(service)
            if not replay:
                service.journal.legacy = not service.journal.prepare(allow_legacy=allow_legacy)
        except BaseException:
            service.close()
            raise
        if replay:
            service.start(allow_legacy=allow_legacy)
        elif not service.journal.legacy:
            service.bring_graph_up_to_date()
    try:
        yield service
    finally:
        service.close()


def _readable_file(path: Path, option: str | None = None) -> None:
    """UserError unless `path` is a file this process can read (checked before any store is opened)."""
    where = f"{option}: " if option else ""
    if not path.exists():
        raise UserError(f"{where}cannot read {path}: no such file")
    if not path.is_file():
        raise UserError(f"{where}cannot read {path}: not a file")
    if not os.access(path, os.R_OK):
        raise UserError(f"{where}cannot read {path}: permission denied")


def _writable_target(path: Path) -> None:
    """UserError unless a file can be written at `path` (checked before any store is opened)."""
    folder = path.parent
    if path.is_dir():
        raise UserError(f"--output: {path} is a folder")
    if not folder.is_dir():
        raise UserError(f"--output: no such folder: {folder}")
    if not os.access(folder, os.W_OK):
        raise UserError(f"--output: cannot write in {folder}")


@contextmanager
def _output(path: Path | None) -> Iterator[IO[str]]:
    """Stdout, or `path` written whole or not at all: a failed export leaves no partial file behind."""
    if path is None:
        yield sys.stdout
        return
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "w", encoding="utf-8") as out:
            yield out
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# ---- commands ------------------------------------------------------------------------------------


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from graph_service.api.early import EarlyProbes
    from graph_service.serving import check_workers, serve_in_workers

    workers = check_workers(args.workers if args.workers is not None else settings.workers)
    if workers > 1:
        return serve_in_workers(settings, workers)

    failed: list[BaseException] = []

    def stop_serving(exc: BaseException) -> None:
        # From the start thread: the server shuts down as on SIGTERM, and the command ends with `exc`.
        failed.append(exc)
        server.should_exit = True

    def build() -> Any:
        # About a second of imports, built behind the probes EarlyProbes answers meanwhile; the service starts
        # opening first (the embedded server loads its files in a process of its own), so the two overlap.
        from graph_service.api.startup import BackgroundStart

        starting = BackgroundStart(settings, {}, stop_serving)
        starting.begin()
        try:
            from graph_service.api.app import create_app

            return create_app(settings, starting=starting)
        except BaseException:
            starting.stop()
            raise

    app = EarlyProbes(build, on_failure=stop_serving)
    server = uvicorn.Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_config=log_config()))
    server.run()
    if failed:
        raise failed[0]
    return 0


def _kept_checkpoint(service: Service, args: argparse.Namespace) -> Checkpoint | None:
    """The checkpoint given with --against, opened with --key (default: this store's own signer)."""
    from graph_service.tlog.verifier import VerificationError, open_checkpoint

    if args.against is None:
        return None
    try:
        text = args.against.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--against: cannot read {args.against}: {exc}") from None
    try:
        return open_checkpoint(text, args.key or service.signer.verifier_key())
    except VerificationError as exc:
        raise UserError(f"--against: {args.against} is not a checkpoint signed by that key: {exc.reason}") from None


def _checked_chain(service: Service, desc: str, roots_at: Iterable[int] = ()) -> VerifyReport:
    """The journal's full check, with progress over the entries it reads (and the Merkle roots at `roots_at`)."""
    with progress(desc=desc, total=service.stored_total()) as bar:
        return service.journal.verify(on_entry=lambda _entry: bar.update(), roots_at=roots_at)


def _verified(service: Service, roots_at: Iterable[int]) -> FullReport:
    """service.verify with progress over the entries it checks, then over the nodes and edges it compares."""
    with ExitStack() as bars:
        entries = bars.enter_context(progress(desc="verify", total=service.stored_total()))
        compared: list[tqdm] = []

        def on_compared(done: int, total: int) -> None:
            if not compared:
                entries.close()  # every entry read: the comparison's own bar follows
                compared.append(bars.enter_context(progress(desc="compare", total=total, unit="node")))
            bar = compared[0]
            bar.total = total  # grows when what writes changed meanwhile is compared again
            bar.update(done - bar.n)

        return service.verify(roots_at=roots_at, on_entry=lambda _entry: entries.update(), on_compared=on_compared)


def _verify(settings: Settings, args: argparse.Namespace) -> int:
    from graph_service.journal.proofs import b64

    if args.against is not None:
        _readable_file(args.against, "--against")
    # Not replayed into the service's own state: verify replays the journal beside its check, and a second
    # replay held both at once (at 10^4 and 3x10^4 entries of the benchmark mix, the process's peak RSS 130 and
    # 295 MB with it, 94 and 144 MB without, with verify's projection on disk).
    with _service(settings, replay=False) as service:
        kept = _kept_checkpoint(service, args)
        report = _verified(service, roots_at={kept.size} if kept else ())
    chain = report.chain
    verdict = {"ok": report.ok, "checked": chain.checked, "head_seq": chain.head_seq, "first_bad": chain.first_bad,
               "reason": chain.reason if not chain.ok else report.projection_difference,
               "chain_ok": chain.ok, "projection_ok": report.projection_ok, "fingerprint": report.replay_fingerprint}
    if kept is not None:
        against = {"size": kept.size, "root": b64(kept.root), "ok": False}
        if chain.head_seq < kept.size:
            against["reason"] = (f"rolled back: the journal holds {chain.head_seq} entries, the checkpoint "
                                 f"covers {kept.size}")
        elif kept.size not in chain.roots:
            against["reason"] = f"the first {kept.size} entries could not be checked: {chain.reason}"
        elif chain.roots[kept.size] != kept.root:
            against["reason"] = (f"rewritten: the first {kept.size} entries are not the ones the checkpoint "
                                 "signed (their Merkle root differs)")
        else:
            against = {**against, "ok": True, "reason": None}
        verdict["against_checkpoint"] = against
        verdict["ok"] = verdict["ok"] and against["ok"]
        if verdict["reason"] is None:
            verdict["reason"] = against["reason"]
    print(json.dumps(verdict))
    return 0 if verdict["ok"] else 1


def _checkpoint(settings: Settings, args: argparse.Namespace) -> int:
    with _service(settings, replay=False) as service:
        # The root a check of the chain recomputes from the entries' own bytes (streamed, bounded memory), where
        # a start replayed the journal for its frontier. A broken chain is a problem found (exit 1), as the
        # README says; it was refused as bad usage (exit 2) by the journal's writer check.
        size = service.stored_total() or 0
        chain = _checked_chain(service, "check", roots_at={size})
        if not chain.ok:
            raise ProblemFound(f"the journal's chain is broken at position {chain.first_bad}: {chain.reason}; "
                               "no checkpoint signed")
        sys.stdout.write(service.signed_checkpoint(size, chain.roots[size])[3])
        print(f"verifier key: {service.signer.verifier_key()}", file=sys.stderr)
    return 0


def _fingerprint(settings: Settings, args: argparse.Namespace) -> int:
    with _service(settings, replay=False) as service:
        # The graph's two running sums (Service.fingerprints) once the chain is checked, which streams the journal
        # in bounded memory; the journal takes the check's verdict, so a broken chain is folded up to the break.
        if not service.started:
            _checked_chain(service, "check")
        print(json.dumps(service.fingerprints()))
    return 0


def _rebuild(settings: Settings, args: argparse.Namespace) -> int:
    from graph_service.state import replay

    # Not replayed into the service's own state first: the chain is checked below, then replayed once.
    with _service(settings, replay=False) as service:
        journal = service.journal
        chain = _checked_chain(service, "check")
        if not chain.ok:
            raise ProblemFound(f"the journal's chain is broken at position {chain.first_bad}: {chain.reason}; "
                               "nothing rebuilt")
        head = chain.head_seq
        if args.upto is not None and args.upto > head:
            raise UserError(f"--upto {args.upto} is past the journal's head ({head} entries)")
        wanted = list(dict.fromkeys(args.skip or ()))
        held = {r["item"]["id"] for r in service.graph.run("items_by_id", {"ids": wanted})}  # not the whole store
        unknown = [i for i in wanted if i not in held]
        if unknown:
            raise UserError(f"--skip: the store holds no item {', '.join(unknown)}")
        last = head if args.upto is None else args.upto
        with progress(journal.entries_after(0, limit=last), desc="replay", total=last) as entries:
            state = replay(entries, upto=args.upto, skip=args.skip or ())
    print(json.dumps(state.fingerprints()))
    return 0


def _export(settings: Settings, args: argparse.Namespace) -> int:
    if args.node is not None and args.format == "journal":
        raise UserError("--node: only a PROV format (prov-json, prov-n, prov-o) exports one node's derivation")
    if args.output is not None:
        _writable_target(args.output)
    # The journal as stored is read as it is; a PROV document is made from the replayed state.
    with (_service(settings, allow_legacy=True, replay=args.format != "journal") as service,
          _output(args.output) as out):
        journal = service.journal
        if args.format == "journal":
            _write_journal(service, out)
            return 0
        if journal.legacy:
            raise UserError("a format-1 store exports only as its journal (--format journal): load that into a "
                            "new store (load --from-format 1) and export from there")
        from graph_service.prov import prov_document, serialize
        from graph_service.state import replay

        position = service.state.position
        # A service holding no knowledge state, belief layer, stream or questions (GRAPH_SERVICE_KNOWLEDGE/BELIEFS/
        # STREAM/QUESTIONS=graph) has no records to describe: the document is made from the journal replayed, as
        # `prov` as of a position is.
        state = replay(journal.entries_after(0, limit=position)) if (
            service.knowledge_in_graph or service.beliefs_in_graph or service.stream_in_graph
            or service.questions_in_graph) else service.state
        with progress(journal.entries_after(0, limit=position), desc="export", total=position) as entries:
            document = prov_document(state, entries, node=args.node)
        _stage(f"export: writing {args.format} ({len(document.get_records())} records)")
        text = serialize(document, args.format)
        out.write(text if text.endswith("\n") else text + "\n")
    return 0


def _write_journal(service: Service, out: IO[str]) -> None:
    from graph_service.journal.chain import canonical_json

    journal = service.journal
    total = journal.stored_head().get("seq")
    with progress(journal.entries_after(0), desc="export", total=total if isinstance(total, int) else None) as rows:
        for entry in rows:
            out.write(canonical_json({**entry.body(), "prev": entry.prev, "hash": entry.hash}) + "\n")


def _load(settings: Settings, args: argparse.Namespace) -> int:
    from graph_service.journal.chain import Entry

    _readable_file(args.file)
    size = args.file.stat().st_size

    def entries(bar: tqdm) -> Iterator[Entry]:
        with open(args.file, "rb") as lines:
            for number, line in enumerate(lines, start=1):
                bar.update(len(line))
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    yield Entry(seq=row["seq"], op=row["op"], by=row["by"], at=row["at"], payload=row["payload"],
                                prev=row["prev"], hash=row["hash"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise UserError(f"{args.file}:{number}: not an exported journal entry ({exc})") from None

    # As the service is configured: with GRAPH_SERVICE_KNOWLEDGE=graph the batches are applied on what they read of
    # the graph (from_graph.knowledge.Run, started again every RUN_ENTRIES entries), not on a whole knowledge state.
    with _service(settings) as service:
        with progress(desc="load", total=size, unit="B", unit_scale=True, unit_divisor=1024) as bar:
            count = service.journal.import_entries(entries(bar), from_format=args.from_format)
        print(json.dumps({"loaded": count, "head": service.journal.seq}))
    return 0


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    import importlib
    import pkgutil

    try:
        package = importlib.import_module(BENCHMARKS)
    except ImportError:
        raise UserError(f"the {BENCHMARKS} package is not installed beside graph_service") from None
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
    if args.name not in names:
        raise UserError(f"no benchmark {args.name!r}; there are: {', '.join(names)}")
    module = f"{BENCHMARKS}.{args.name}"
    argv = sys.argv
    sys.argv = [module, *args.rest]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:  # how a benchmark run as a script reports its verdict
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(f"graph_service bench: {done.code}", file=sys.stderr)
        return 1
    finally:
        sys.argv = argv
    return 0


COMMANDS: dict[str, tuple[Callable[[Settings, argparse.Namespace], int], str]] = {
    "serve": (_serve, "serve the GraphQL API (GRAPH_SERVICE_HOST/PORT), from --workers processes "
                      "(GRAPH_SERVICE_WORKERS, default 1)"),
    "verify": (_verify, "check the journal's chain and that the graph equals its replay (exit 1 if not); "
                        "--against CHECKPOINT also checks it against a checkpoint kept earlier"),
    "checkpoint": (_checkpoint, "print a signed checkpoint of the journal (C2SP signed note) to keep"),
    "fingerprint": (_fingerprint, "print what the store believes, as hashes"),
    "rebuild": (_rebuild, "check the chain (exit 1 if broken), then replay the journal purely (as at --upto, "
                          "or without --skip items) and print its fingerprints"),
    "export": (_export, "write the journal as JSON lines, or the store (or one --node's derivation) as W3C PROV, "
                        "to --output or stdout; the journal format works on a format-1 store too"),
    "load": (_load, "append an exported journal (JSON lines) to this store, verbatim"),
    "bench": (_bench, "run a benchmark by name (a module of the benchmarks package: knowledge_retraction, "
                      "knowledge_incremental, log_proofs, service_shape) with its own options"),
}


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (and exit 2), like every other error of the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _position(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a journal position: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a journal position is 0 or more, not {value}")
    return value


def parser() -> argparse.ArgumentParser:
    """The command line's arguments, one sub-command each."""
    top = _Parser(prog="graph_service", description="A provenance service on a graph.")
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (_, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == "serve":
            command.add_argument("--workers", type=int, help="how many processes serve one port and one store "
                                                             "(default GRAPH_SERVICE_WORKERS, else 1)")
        if name == "rebuild":
            command.add_argument("--upto", type=_position, help="the journal position to stop at (at most the head)")
            command.add_argument("--skip", nargs="*", help="item ids whose own entries are left out")
        if name == "export":
            command.add_argument("--format", choices=EXPORT_FORMATS, default="journal",
                                 help="journal: JSON lines, one entry each (default); prov-json, prov-n, prov-o "
                                      "(Turtle): W3C PROV")
            command.add_argument("--node", help="only this node's derivation: it and everything it rests on (PROV)")
            command.add_argument("--output", type=Path, help="file to write (default: stdout)")
        if name == "load":
            command.add_argument("file", type=Path, help="an exported journal, JSON lines")
            command.add_argument("--from-format", type=int, choices=(1, 2), default=2,
                                 help="1: a format-1 export, checked and re-sealed in the current format")
        if name == "verify":
            command.add_argument("--against", type=Path, help="a checkpoint (signed note) kept earlier")
            command.add_argument("--key", help="the verifier key of the checkpoint's signer (default: this store's)")
        if name == "bench":
            command.add_argument("name", help="the benchmark: a module of the benchmarks package")
            command.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own options")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.config.dictConfig(log_config())
    where = f"graph_service {args.command}"
    try:
        try:
            settings = Settings.from_env()
        except ValueError as exc:
            raise UserError(f"bad configuration in the environment: {exc}") from None
        return COMMANDS[args.command][0](settings, args)
    except (UserError, StoreLocked, StoreFormatError) as exc:
        print(f"{where}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except ProblemFound as exc:
        print(f"{where}: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the store or the machine failed: said in one line, the traceback kept for debug
        log.debug("%s failed", where, exc_info=True)
        print(f"{where}: failed: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
