"""graphql-schema-linter (npm, pinned in package.json) over schema.graphql: clean under
graphql-schema-linter.config.js, which names each rule it does not run and why (issue 13 part 4).

Node and the package come from `npm ci` (the Makefile runs it before the tests); without them these
tests fail, saying so."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINTER = ROOT / "node_modules" / ".bin" / "graphql-schema-linter"


def lint(schema: Path) -> list[dict[str, str]]:
    assert LINTER.exists(), "graphql-schema-linter is not installed: run `make node_modules/.installed`"
    done = subprocess.run([str(LINTER), "--format", "json", "--config-directory", str(ROOT), str(schema)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    return json.loads(done.stdout)["errors"]


def test_schema_graphql_is_lint_clean() -> None:
    errors = lint(ROOT / "schema.graphql")
    assert errors == [], "\n".join(f"{e['rule']}: {e['message']}" for e in errors)


def test_the_linter_can_fail(tmp_path: Path) -> None:
    # The config must not have switched everything off: an undescribed type is still reported.
    bad = tmp_path / "bad.graphql"
    bad.write_text('"""Reads."""\ntype Query {\n  thing: Thing\n}\n\ntype Thing {\n  snake_case: Int\n}\n')
    rules = {e["rule"] for e in lint(bad)}
    assert {"types-have-descriptions", "fields-are-camel-cased"} <= rules, rules
