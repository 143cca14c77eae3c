"""GraphiQL from files the service ships: the page and every asset it references are served by the app
(no CDN, nothing external), with tokens configured too, and the vendored copies are the npm pins. In a
real browser with every non-local request blocked, a query runs and its result shows, and with tokens
the person's token goes in GraphiQL's Headers tab."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from tests.backends import Backend
from tests.integration.test_explorer import ARTIFACTS, CHROMIUM, serve

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "graph_service/api/graphiql_static/vendor"
TOKENS = {"t-reader": "reader"}
# What a page or style sheet loads: script and link targets, CSS url() and @import.
REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']"""
                       r"""|url\(\s*["']?([^"')]+)["']?\s*\)|@import\s+["']([^"']+)""")
CDN_URL = re.compile(r"(?:https?:)?//[\w.-]*(?:unpkg|jsdelivr|cdnjs|esm\.sh|googleapis|skypack)[\w.-]*/")


def references(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in REFERENCE.finditer(text)]


@pytest.fixture
def client(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("GRAPH_SERVICE_TOKENS_JSON", json.dumps(TOKENS))
    with TestClient(create_app(backend.settings())) as c:
        yield c


def test_the_page_and_all_it_loads_are_served_locally_with_tokens_configured(client: TestClient) -> None:
    # Regression (issue 13): with tokens the page itself answered 401, and its 7 files came from a CDN.
    page = client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assets = references(page.text)
    assert len(assets) == 6, assets  # GraphiQL's style and script, react, react-dom, and the page's own two
    seen: set[str] = set()
    while assets:
        asset = assets.pop()
        if asset.startswith("data:") or asset in seen:
            continue
        seen.add(asset)
        assert asset.startswith("/") and not asset.startswith("//"), f"{asset} is not served by the app"
        answer = client.get(asset)  # no token: static files of a page that works before one is given
        assert answer.status_code == 200, asset
        if asset.endswith(".css"):
            assets += references(answer.text)
        if asset.endswith(".js"):
            # No URL of a CDN (the bundle's own prose names some, in an error message); what a script
            # loads at run time the browser test below sees.
            assert not CDN_URL.search(answer.text), f"{asset}: {CDN_URL.search(answer.text)}"
    # Only the page is open: the API on the same path still needs the token.
    assert client.post("/graphql", json={"query": "{ head { seq } }"}).status_code == 401
    assert client.get("/graphql", params={"query": "{ head { seq } }"},
                      headers={"accept": "text/html"}).status_code == 401
    reader = client.post("/graphql", json={"query": "{ head { seq } }"}, headers={"authorization": "Bearer t-reader"})
    assert reader.json() == {"data": {"head": {"seq": 0}}}


@pytest.mark.parametrize(("vendored", "package", "installed"), [
    ("graphiql.min.js", "graphiql", "graphiql.min.js"),
    ("graphiql.min.css", "graphiql", "graphiql.min.css"),
    ("react.production.min.js", "react", "umd/react.production.min.js"),
    ("react-dom.production.min.js", "react-dom", "umd/react-dom.production.min.js"),
])
def test_the_vendored_files_are_the_ones_package_json_pins(vendored: str, package: str, installed: str) -> None:
    modules = ROOT / "node_modules" / package
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"][package]
    assert json.loads((modules / "package.json").read_text())["version"] == pinned
    assert (VENDOR / vendored).read_bytes() == (modules / installed).read_bytes()
    assert (VENDOR / f"{package}.LICENSE").read_bytes() == (modules / "LICENSE").read_bytes()


@pytest.mark.skipif(shutil.which("node") is None or not Path(CHROMIUM).exists(),
                    reason="the browser test needs node and Debian's chromium (make test installs it)")
@pytest.mark.parametrize("tokens", [None, TOKENS], ids=["open", "with tokens"])
def test_graphiql_runs_a_query_in_a_browser_offline(tmp_path: Path, tokens: dict[str, str] | None) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"graphiql-{'tokens' if tokens else 'open'}.png"
    with serve(Backend("falkordb", tmp_path / "data"), tmp_path, tokens) as base:
        run = subprocess.run(["node", "tests/browser/graphiql.mjs", base, str(shot), *(list(tokens or ()))],
                             cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "CHROMIUM": CHROMIUM})
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["pageStatus"] == 200
    assert report["errors"] == [] and report["failed"] == []
    assert report["blocked"] == []  # nothing but the service was asked for anything
    assert all(url.startswith(base) for url in report["requested"]), report["requested"]
    if tokens:
        assert "bearer token is required" in report["withoutToken"]["errors"][0]["message"]
        assert report["headers"] == '{"Authorization":"Bearer t-reader"}'
    assert report["result"] == {"data": {"head": {"seq": 0}, "journal": {"totalCount": 0}}}
    assert shot.stat().st_size > 10_000
