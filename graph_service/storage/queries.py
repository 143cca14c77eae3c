"""Named Cypher queries: `cypher/<name>.cypher`, loaded once, never assembled from input.

A name is looked up in the set of files that exist, so nothing a client sends can reach the
file system or the query text.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

CYPHER_DIR = Path(os.environ.get("GRAPH_SERVICE_CYPHER_DIR", Path(__file__).resolve().parents[2] / "cypher"))
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@cache
def available() -> frozenset[str]:
    """The names of every query file."""
    return frozenset(p.stem for p in CYPHER_DIR.glob("*.cypher"))


@cache
def load(name: str) -> str:
    """The text of the named query; KeyError for a name that is not a query file."""
    if not _NAME.match(name) or name not in available():
        raise KeyError(f"no Cypher query named {name!r} in {CYPHER_DIR}")
    return (CYPHER_DIR / f"{name}.cypher").read_text(encoding="utf-8").strip()


def statements(name: str) -> list[str]:
    """A multi-statement file (schema DDL) split on `;` at line ends, comments dropped."""
    text = load(name)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
