"""The command line: serve, verify, fingerprint, rebuild, export, load, bench."""

from __future__ import annotations

import argparse
import json
import logging.config
import runpy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from graph_service.config import Settings
from graph_service.errors import StoreLocked, UserError
from graph_service.logs import log_config

if TYPE_CHECKING:  # the service (and its drivers) load only for the commands that need them
    from graph_service.service import Service


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from graph_service.api.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=log_config())
    return 0


def _with_service(work: Callable[..., int]) -> Callable[[Settings, argparse.Namespace], int]:
    def run(settings: Settings, args: argparse.Namespace) -> int:
        from graph_service.service import Service

        service = Service.open(settings)
        try:
            return work(service, args)
        finally:
            service.close()

    return run


@_with_service
def _verify(service: Service, args: argparse.Namespace) -> int:
    report = service.verify()
    print(json.dumps({"ok": report.ok, **report.chain.__dict__, "projection_ok": report.projection_ok,
                      "fingerprint": report.replay_fingerprint}))
    return 0 if report.ok else 1


@_with_service
def _fingerprint(service: Service, args: argparse.Namespace) -> int:
    print(json.dumps(service.state.fingerprints()))
    return 0


@_with_service
def _rebuild(service: Service, args: argparse.Namespace) -> int:
    from graph_service.state import replay

    entries = tqdm(service.journal.entries_after(0), total=service.journal.seq, desc="replay", unit="entry",
                   file=sys.stderr, disable=None)
    print(json.dumps(replay(entries, upto=args.upto, skip=args.skip or ()).fingerprints()))
    return 0


@_with_service
def _export(service: Service, args: argparse.Namespace) -> int:
    from graph_service.journal.chain import canonical_json

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        for entry in tqdm(service.journal.entries_after(0), total=service.journal.seq, desc="export",
                          unit="entry", file=sys.stderr, disable=None):
            out.write(canonical_json({**entry.body(), "prev": entry.prev, "hash": entry.hash}) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


@_with_service
def _load(service: Service, args: argparse.Namespace) -> int:
    from graph_service.journal.chain import Entry

    def entries() -> Iterator[Entry]:
        with open(args.file, encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    yield Entry(seq=row["seq"], op=row["op"], by=row["by"], at=row["at"], payload=row["payload"],
                                prev=row["prev"], hash=row["hash"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise UserError(f"{args.file}:{number}: not an exported journal entry ({exc})") from exc

    count = service.journal.import_entries(tqdm(entries(), desc="load", unit="entry", file=sys.stderr, disable=None))
    print(json.dumps({"loaded": count, "head": service.journal.seq}))
    return 0


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    sys.argv = ["benchmarks.knowledge_retraction", *args.rest]
    runpy.run_module("benchmarks.knowledge_retraction", run_name="__main__")
    return 0


COMMANDS: dict[str, tuple[Callable[[Settings, argparse.Namespace], int], str]] = {
    "serve": (_serve, "serve the GraphQL API (GRAPH_SERVICE_HOST/PORT)"),
    "verify": (_verify, "check the journal's chain and that the graph equals its replay (exit 1 if not)"),
    "fingerprint": (_fingerprint, "print what the store believes, as hashes"),
    "rebuild": (_rebuild, "replay the journal purely (as at --upto, or without --skip items): fingerprints"),
    "export": (_export, "write the journal as JSON lines (to --output or stdout)"),
    "load": (_load, "append an exported journal (JSON lines) to this store, verbatim"),
    "bench": (_bench, "run the knowledge retraction benchmark (arguments passed through)"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="graph_service", description="A provenance service on a graph.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (_, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text)
        if name == "rebuild":
            command.add_argument("--upto", type=int, help="the journal position to stop at")
            command.add_argument("--skip", nargs="*", help="item ids whose own entries are left out")
        if name == "export":
            command.add_argument("--output", type=Path, help="file to write (default: stdout)")
        if name == "load":
            command.add_argument("file", type=Path, help="an exported journal, JSON lines")
        if name == "bench":
            command.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    logging.config.dictConfig(log_config())
    try:
        return COMMANDS[args.command][0](Settings.from_env(), args)
    except (UserError, StoreLocked) as exc:
        print(f"graph_service {args.command}: {exc}", file=sys.stderr)
        return 2
