"""GraphQL over HTTP: malformed bodies of every kind are a 4xx with a GraphQL error body (never a 500,
never Python's words), the two media types with their status codes, and the graphql-http audit suite
run against a real uvicorn."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph_service.api.input_limits import MAX_INPUT_DEPTH
from graph_service.api.limits import MAX_BODY_BYTES
from graph_service.api.over_http import GRAPHQL_RESPONSE_MEDIA
from tests.backends import Backend
from tests.integration.test_explorer import serve

ROOT = Path(__file__).resolve().parents[2]
FLAG = 'mutation($s: JSON) { raiseFlag(why: "drift", scope: $s) { id } }'


def nested_json(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def flag_body(levels: int) -> bytes:
    return b'{"query": %s, "variables": {"s": %s}}' % (json.dumps(FLAG).encode(), nested_json(levels))


def head(client: TestClient) -> dict[str, Any]:
    return client.post("/graphql", json={"query": "{ head { seq hash } }"}).json()["data"]["head"]


MALFORMED = [
    # Regression (issue 13): each of the first five answered HTTP 500.
    ("invalid UTF-8", b'{"query": "{ head { seq } }", "x": "\xff\xfe"}', 400, "not valid UTF-8"),
    ("a body of null", b"null", 400, "must be an object, not null"),
    ("a number", b"1", 400, "must be an object, not a number"),
    ("a string", b'"{ head { seq } }"', 400, "must be an object, not a string"),
    ("nested past the recursion limit", b'{"query": "{ head { seq } }", "variables": {"v": '
     + nested_json(sys.getrecursionlimit() * 20) + b"}}", 400, "nested too deeply"),
    # Regression (issue 13): these returned "maximum recursion depth exceeded" to the client.
    *[(f"a variable nested {n} deep", flag_body(n), 400, f"Variable $s is nested deeper than {MAX_INPUT_DEPTH}")
      for n in (400, 600, 900)],
    ("an array (a batch: not enabled)", b'[{"query": "{ head { seq } }"}]', 400, "must be an object, not an array"),
    ("not JSON", b'{"query": ', 400, "is not JSON"),
    ("an integer of 5,000 digits", b'{"query": "{ head { seq } }", "variables": {"n": ' + b"9" * 5000 + b"}}",
     400, "cannot be read"),
    ("no query", b"{}", 400, "No GraphQL query"),
    ("a query that is not a string", b'{"query": 5}', 400, "must be a string"),
    ("variables that are not an object", b'{"query": "{ head { seq } }", "variables": [1]}', 400,
     "must be an object"),
    ("an operationName that is not a string", b'{"query": "{ head { seq } }", "operationName": 5}', 400,
     "must be a string or null"),
    ("oversized", b'{"query": "' + b"x" * MAX_BODY_BYTES + b'"}', 413, "larger than"),
]


@pytest.mark.parametrize(("what", "body", "status", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize("accept", [None, GRAPHQL_RESPONSE_MEDIA])
# With an Idempotency-Key (the IETF draft's header) too: a layer that reads keyed bodies must refuse the
# same bodies the same way.
@pytest.mark.parametrize("keyed", [False, True], ids=["", "keyed"])
def test_a_malformed_body_is_a_4xx_with_a_graphql_error(client: TestClient, what: str, body: bytes, status: int,
                                                        message: str, accept: str | None, keyed: bool) -> None:
    before = head(client)
    headers = {"content-type": "application/json", **({"accept": accept} if accept else {}),
               **({"idempotency-key": '"malformed-1"'} if keyed else {})}
    response = client.post("/graphql", content=body, headers=headers)
    assert response.status_code == status, response.text[:300]
    answer = response.json()
    assert set(answer) == {"errors"} and len(answer["errors"]) == 1
    assert message in answer["errors"][0]["message"]
    assert "recursion" not in response.text.lower() and "Traceback" not in response.text
    assert head(client) == before


def test_refusals_of_the_http_layer_are_graphql_errors(client: TestClient) -> None:
    # strawberry answers these in plain text; a GraphQL client reads an errors list.
    unsupported = client.post("/graphql", content=b"{ head { seq } }", headers={"content-type": "text/plain"})
    assert unsupported.status_code == 400
    assert unsupported.json()["errors"][0]["message"] == "Unsupported content type"
    # Regression (issue 13): a subscription over POST had no stream to give and was an internal error.
    subscription = client.post("/graphql", json={"query": "subscription { journalEntries { seq } }"})
    assert subscription.status_code == 400
    assert subscription.json()["errors"][0]["message"] == "subscriptions are not allowed when using POST"
    mutation_over_get = client.get("/graphql", params={"query": 'mutation { note(text: "x") { seq } }'})
    assert mutation_over_get.status_code == 400
    assert "mutations are not allowed when using GET" in mutation_over_get.json()["errors"][0]["message"]
    assert head(client)["seq"] == 0


def post_as(client: TestClient, accept: str | None, query: str, variables: dict[str, Any] | None = None) -> Any:
    headers = {"accept": accept} if accept else {}
    return client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)


@pytest.mark.parametrize(("query", "variables"), [
    ("{ head { seq ", None),  # a parse error
    ("{ head { nope } }", None),  # a validation error
    ("query($n: Int!) { journal(first: $n) { totalCount } }", {"n": "three"}),  # variable coercion
])
def test_a_request_error_is_400_without_data_in_graphql_response_json(client: TestClient, query: str,
                                                                      variables: dict[str, Any] | None) -> None:
    response = post_as(client, GRAPHQL_RESPONSE_MEDIA, query, variables)
    assert response.status_code == 400
    assert response.headers["content-type"] == f"{GRAPHQL_RESPONSE_MEDIA}; charset=utf-8"
    assert set(response.json()) == {"errors"}
    # application/json keeps 200 and data: null for a well-formed request, as the spec asks of it.
    legacy = post_as(client, "application/json", query, variables)
    assert legacy.status_code == 200 and legacy.headers["content-type"] == "application/json"
    assert legacy.json()["data"] is None and legacy.json()["errors"]


def test_a_field_error_is_200_with_data_in_both_media_types(client: TestClient) -> None:
    for accept in (GRAPHQL_RESPONSE_MEDIA, "application/json"):
        response = post_as(client, accept, '{ head { seq } item(id: "nope") { id } }')
        assert response.status_code == 200
        body = response.json()
        # A missing item is null beside its intact siblings (issue 13): an executed request, data present.
        assert body["data"] == {"head": {"seq": 0}, "item": None}
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(("accept", "media"), [
    (None, "application/json"),
    ("*/*", "application/json"),
    ("application/json", "application/json"),
    (GRAPHQL_RESPONSE_MEDIA, GRAPHQL_RESPONSE_MEDIA),
    (f"application/json;q=0.9, {GRAPHQL_RESPONSE_MEDIA}", GRAPHQL_RESPONSE_MEDIA),
    (f"application/json, {GRAPHQL_RESPONSE_MEDIA};q=0.5", "application/json"),
])
def test_the_response_takes_the_media_type_the_client_prefers(client: TestClient, accept: str | None,
                                                              media: str) -> None:
    response = post_as(client, accept, "{ head { seq } }")
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media
    assert response.json() == {"data": {"head": {"seq": 0}}}


AUDIT = ROOT / "node_modules/graphql-http/package.json"


@pytest.mark.skipif(shutil.which("node") is None or not AUDIT.exists(),
                    reason="the audit needs node and the npm tools (make test installs them)")
@pytest.mark.parametrize("tokens", [None, {"t-reader": "reader"}], ids=["open", "with tokens"])
def test_the_graphql_http_audit_suite_passes_without_a_warning(tmp_path: Path, tokens: dict[str, str] | None) -> None:
    # Issue 13 measured 53 ok and 8 warnings (application/graphql-response+json and its status codes).
    with serve(Backend("falkordb", tmp_path / "data"), tmp_path, tokens) as base:
        run = subprocess.run(["node", "tests/node/graphql_http_audit.mjs", f"{base}/graphql",
                              *(list(tokens) if tokens else [])], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    not_ok = [r for r in report["results"] if r["status"] != "ok"]
    assert not not_ok, json.dumps(not_ok, indent=1)
    assert report["counts"]["ok"] == len(report["results"]) >= 60
