"""The command line: serve, verify, export."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from graph_service.config import Settings


def _serve(settings: Settings) -> int:
    import uvicorn

    from graph_service.api.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    return 0


def _verify(settings: Settings) -> int:
    from graph_service.service import Service

    service = Service.open(settings)
    try:
        report = service.verify()
    finally:
        service.close()
    print(json.dumps({"ok": report.ok, **report.chain.__dict__, "projection_ok": report.projection_ok,
                      "fingerprint": report.replay_fingerprint}))
    return 0 if report.ok else 1


def _export(settings: Settings) -> int:
    from graph_service.journal.chain import canonical_json
    from graph_service.service import Service

    service = Service.open(settings)
    try:
        for entry in service.journal.entries_after(0):
            sys.stdout.write(canonical_json({**entry.body(), "prev": entry.prev, "hash": entry.hash}) + "\n")
    finally:
        service.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="graph_service", description="A provenance service on a graph.")
    parser.add_argument("command", choices=["serve", "verify", "export"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='{"level":"%(levelname)s","logger":"%(name)s","msg":"%(message)s"}')
    settings = Settings.from_env()
    return {"serve": _serve, "verify": _verify, "export": _export}[args.command](settings)
