"""Write schema.graphql from the code (`--check`: exit 1 when the checked-in file is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

from graph_service.api.schema import schema

TARGET = Path(__file__).resolve().parents[1] / "schema.graphql"


def main(argv: list[str]) -> int:
    text = schema.as_str() + "\n"
    if "--check" in argv:
        return 0 if TARGET.exists() and TARGET.read_text() == text else 1
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
