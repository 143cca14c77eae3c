"""Neo4j compatibility of every Cypher statement, checked without a Neo4j server (SPEC §1.1).

`tools/lint_cypher.mjs` runs Neo4j's own Cypher front end (npm `@neo4j-cypher/language-support`,
`lintCypherQuery`: the grammar and Neo4j's semantic analysis) over each `cypher/*.cypher` file,
with the built-in function and procedure registry (so APOC or a misspelt function is reported).
Every file must come out with zero diagnostics other than undeclared-parameter notices.

The self-tests prove the linter can fail: a broken query, a query calling APOC and a query using
an undefined variable must be reported, and a valid parameterised query must not be.

Node and the package are set up by `npm ci` (the Makefile runs it before the tests). Without
them these tests fail, saying so; they never skip.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CYPHER_DIR = ROOT / "cypher"
SCRIPT = ROOT / "tools" / "lint_cypher.mjs"
PACKAGE_DIR = ROOT / "node_modules" / "@neo4j-cypher" / "language-support"
CYPHER_FILES = sorted(CYPHER_DIR.glob("*.cypher"))

SELF_TEST_QUERIES = {
    "broken_syntax.cypher": "MATCH (n:Item {id: $id} RETURN n.status AS status\n",
    "calls_apoc.cypher": "MATCH (n:Item {id: $id})\nRETURN apoc.coll.sum(n.weights) AS total\n",
    "undefined_variable.cypher": "MATCH (n:Item {id: $id})\nRETURN m.status AS status\n",
    "valid_parameterised.cypher": "MATCH (n:Item {id: $id}) RETURN n.status AS status\n",
}


def is_parameter_notice(diagnostic: dict) -> bool:
    """The notice the spec allows: `Parameter $x is not defined.` (the package's isNotParamError rule)."""
    message = diagnostic["message"]
    return message.startswith("Parameter ") and message.endswith(" is not defined.")


def findings(diagnostics: list[dict]) -> list[dict]:
    return [d for d in diagnostics if not is_parameter_notice(d)]


def describe(path: str, diagnostics: list[dict]) -> str:
    return "\n".join(f"{path}:{d['line']}:{d['col']}: {d['severity']}: {d['message']}" for d in diagnostics)


@dataclass
class LintRun:
    """The linter's JSON output, or why there is none (reported by each test as a failure)."""

    output: dict | None = None
    problem: str | None = None

    def files(self) -> dict[str, list[dict]]:
        if self.problem is not None:
            pytest.fail(self.problem, pytrace=False)
        assert self.output is not None
        return self.output["files"]


def run_linter(paths: list[Path] | None = None) -> LintRun:
    node = shutil.which("node")
    if node is None:
        return LintRun(problem=f"`node` is not on PATH: install Node.js 20 or newer, then run `npm ci` in {ROOT}")
    if not PACKAGE_DIR.is_dir():
        return LintRun(
            problem=f"{PACKAGE_DIR.relative_to(ROOT)} is missing: run `npm ci` in {ROOT} "
            "(the Makefile does it before `make test`)"
        )
    command = [node, str(SCRIPT), *(str(p) for p in paths or [])]
    try:
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return LintRun(problem=f"the Cypher linter did not finish in 300 s: {' '.join(command)}")
    if proc.returncode != 0:
        return LintRun(
            problem=f"the Cypher linter itself failed (exit {proc.returncode}); if a package is missing, "
            f"run `npm ci` in {ROOT}\n{proc.stderr.strip()}"
        )
    try:
        return LintRun(output=json.loads(proc.stdout))
    except json.JSONDecodeError as exc:
        return LintRun(problem=f"the Cypher linter printed no JSON ({exc}):\n{proc.stdout[:2000]}\n{proc.stderr}")


@pytest.fixture(scope="module")
def repo_lint() -> LintRun:
    """One run of the linter over every cypher/*.cypher file (its default)."""
    return run_linter()


@pytest.fixture(scope="module")
def self_test_lint(tmp_path_factory: pytest.TempPathFactory) -> LintRun:
    """One run of the linter over the self-test queries, written to a temporary folder."""
    folder = tmp_path_factory.mktemp("cypher_lint_self_test")
    paths = []
    for name, text in SELF_TEST_QUERIES.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return run_linter(paths)


def self_test(run: LintRun, name: str) -> list[dict]:
    """The diagnostics of one self-test query (failing the test if the linter did not run)."""
    by_name = {Path(key).name: diagnostics for key, diagnostics in run.files().items()}
    assert name in by_name, f"the linter did not report on {name}"
    return by_name[name]


if CYPHER_FILES:  # with an empty cypher/, the self-tests and the coverage test still run (no empty parametrisation)

    @pytest.mark.parametrize("path", CYPHER_FILES, ids=[p.name for p in CYPHER_FILES])
    def test_cypher_file_passes_neo4j_lint(repo_lint: LintRun, path: Path) -> None:
        key = f"cypher/{path.name}"
        files = repo_lint.files()
        assert key in files, f"the linter did not report on {key}"
        problems = findings(files[key])
        if problems:
            pytest.fail(
                f"Neo4j's Cypher front end reports {len(problems)} diagnostic(s) in {key} "
                f"(only undeclared-parameter notices are allowed):\n{describe(key, problems)}",
                pytrace=False,
            )


def test_linter_covered_every_cypher_file(repo_lint: LintRun) -> None:
    assert set(repo_lint.files()) == {f"cypher/{p.name}" for p in CYPHER_FILES}


def test_self_test_broken_syntax_is_reported(self_test_lint: LintRun) -> None:
    problems = findings(self_test(self_test_lint, "broken_syntax.cypher"))
    assert any(d["severity"] == "error" for d in problems), problems


def test_self_test_non_builtin_function_is_reported(self_test_lint: LintRun) -> None:
    problems = findings(self_test(self_test_lint, "calls_apoc.cypher"))
    assert any("apoc.coll.sum" in d["message"] and d["severity"] == "error" for d in problems), problems
    assert any(d["line"] == 2 for d in problems), problems


def test_self_test_semantic_error_is_reported(self_test_lint: LintRun) -> None:
    # Proves Neo4j's semantic analysis runs, not only the grammar.
    problems = findings(self_test(self_test_lint, "undefined_variable.cypher"))
    assert any("`m`" in d["message"] for d in problems), problems


def test_self_test_valid_parameterised_query_is_clean(self_test_lint: LintRun) -> None:
    diagnostics = self_test(self_test_lint, "valid_parameterised.cypher")
    assert not findings(diagnostics), describe("valid_parameterised.cypher", diagnostics)
