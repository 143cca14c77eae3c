"""Checked-in files generated from the code must match it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_check(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, script, "--check"], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_schema_graphql_is_current() -> None:
    done = run_check("tools/export_schema.py")
    assert done.returncode == 0, "schema.graphql is stale: run `make schema`\n" + done.stderr


def test_project_entries_cypher_is_current() -> None:
    done = run_check("tools/gen_project_entry_cypher.py")
    assert done.returncode == 0, done.stderr
