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
from graph_service.errors import StoreFormatError, StoreLocked, UserError
from graph_service.logs import log_config

if TYPE_CHECKING:  # the service (and its drivers) load only for the commands that need them
    from graph_service.service import Service
    from graph_service.tlog.verifier import Checkpoint


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from graph_service.api.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=log_config())
    return 0


def _with_service(work: Callable[..., int], *, allow_legacy: bool = False) -> Callable[[Settings, argparse.Namespace],
                                                                                       int]:
    def run(settings: Settings, args: argparse.Namespace) -> int:
        from graph_service.service import Service

        service = Service.open(settings, allow_legacy=allow_legacy)
        try:
            return work(service, args)
        finally:
            service.close()

    return run


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


@_with_service
def _verify(service: Service, args: argparse.Namespace) -> int:
    from graph_service.journal.proofs import b64

    kept = _kept_checkpoint(service, args)
    report = service.verify(roots_at={kept.size} if kept else ())
    chain = report.chain
    verdict = {"ok": report.ok, "checked": chain.checked, "head_seq": chain.head_seq, "first_bad": chain.first_bad,
               "reason": chain.reason if not chain.ok else None if report.projection_ok else
               "the graph's statuses differ from a replay of the journal",
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


@_with_service
def _checkpoint(service: Service, args: argparse.Namespace) -> int:
    sys.stdout.write(service.checkpoint()[3])
    print(f"verifier key: {service.signer.verifier_key()}", file=sys.stderr)
    return 0


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


def _export_any_format(service: Service, args: argparse.Namespace) -> int:
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

    count = service.journal.import_entries(tqdm(entries(), desc="load", unit="entry", file=sys.stderr, disable=None),
                                           from_format=args.from_format)
    print(json.dumps({"loaded": count, "head": service.journal.seq}))
    return 0


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    sys.argv = ["benchmarks.knowledge_retraction", *args.rest]
    runpy.run_module("benchmarks.knowledge_retraction", run_name="__main__")
    return 0


COMMANDS: dict[str, tuple[Callable[[Settings, argparse.Namespace], int], str]] = {
    "serve": (_serve, "serve the GraphQL API (GRAPH_SERVICE_HOST/PORT)"),
    "verify": (_verify, "check the journal's chain and that the graph equals its replay (exit 1 if not); "
                        "--against CHECKPOINT also checks it against a checkpoint kept earlier"),
    "checkpoint": (_checkpoint, "print a signed checkpoint of the journal (C2SP signed note) to keep"),
    "fingerprint": (_fingerprint, "print what the store believes, as hashes"),
    "rebuild": (_rebuild, "replay the journal purely (as at --upto, or without --skip items): fingerprints"),
    "export": (_with_service(_export_any_format, allow_legacy=True),
               "write the journal as JSON lines (to --output or stdout); works on a format-1 store too"),
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
            command.add_argument("--from-format", type=int, choices=(1, 2), default=2,
                                 help="1: a format-1 export, checked and re-sealed in the current format")
        if name == "verify":
            command.add_argument("--against", type=Path, help="a checkpoint (signed note) kept earlier")
            command.add_argument("--key", help="the verifier key of the checkpoint's signer (default: this store's)")
        if name == "bench":
            command.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    logging.config.dictConfig(log_config())
    try:
        return COMMANDS[args.command][0](Settings.from_env(), args)
    except (UserError, StoreLocked, StoreFormatError) as exc:
        print(f"graph_service {args.command}: {exc}", file=sys.stderr)
        return 2
