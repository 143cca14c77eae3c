"""Schema-driven fuzzing of the GraphQL API on the embedded backend (hypothesis-graphql).

Every root query and mutation field of the schema as the code builds it now gets generated
requests against one running app. For every response: no HTTP 5xx, no exception escaping the
app and no masked error ("Unexpected error." means an exception escaped a resolver). A query
never moves the journal head; a rejected mutation leaves it where it was. Failures are collected
per field and reported together with the query text and the server's traceback, rather than
raised mid-run: shrinking would replay writes against a store that has already moved on.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import graphql
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import nodes
from hypothesis_graphql.strategies import Mode, mutations, queries
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.api.schema import build_schema
from tests.backends import Backend

MASKED = "Unexpected error."
# Per root field; a deeper run: GRAPH_SERVICE_FUZZ_EXAMPLES=100 pytest tests/integration/test_fuzz_api.py
EXAMPLES_PER_FIELD = int(os.environ.get("GRAPH_SERVICE_FUZZ_EXAMPLES", "20"))
NEGATIVE_EXAMPLES = 4 * EXAMPLES_PER_FIELD
HEAD = "{ head { seq hash } }"
ID_INDEX = st.integers(0, 2**16 - 1)

# The schema as the code builds it at test time, never a frozen copy: fields added later are fuzzed too.
SCHEMA = graphql.build_schema(build_schema().as_str())
QUERY_FIELDS = sorted(SCHEMA.query_type.fields)
MUTATION_FIELDS = sorted(SCHEMA.mutation_type.fields)

# Names the store actually uses, so generated values sometimes mean something to the resolvers.
WORDS = ["door", "colour", "blue", "red", "cam", "alice", "fact", "rule", "person", "outcome", "seen", "for",
         "against", "claim", "observation", "belief", "item", "accepted", "active", "hypothesis"]
KEYS = ["s", "r", "o", "kind", "id", "at", "key", "value", "from", "to", "since", "until", "x"]
# Response keys whose string values are worth feeding back as arguments.
HARVESTED = {"id", "key", "belief", "evidence", "observer", "subject", "speaker", "proposition", "family",
             "endCursor", "startCursor", "flag", "pattern", "entity"}


def _json_node(value: Any) -> graphql.ValueNode:
    if value is None:
        return graphql.NullValueNode()
    if isinstance(value, bool):
        return nodes.Boolean(value)
    if isinstance(value, int):
        return nodes.Int(value)
    if isinstance(value, float):
        return nodes.Float(value)
    if isinstance(value, str):
        return nodes.String(value)
    if isinstance(value, list):
        return nodes.List([_json_node(v) for v in value])
    return nodes.Object([graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=_json_node(v))
                         for k, v in value.items()])


TEXT = st.one_of(st.sampled_from(WORDS), st.text(max_size=12))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    max_leaves=6,
)
# A fact body now and then, so addItem and item filters get past the first check.
FACT_BODY = st.fixed_dictionaries({"s": TEXT, "r": TEXT, "o": JSON_VALUES})
JSON_NODES = st.one_of(JSON_VALUES, FACT_BODY).map(_json_node)
# Custom scalars the schema declares: JSON as real JSON values, anything else (a scalar added
# later) as strings, so a field taking it is still generated rather than skipped.
CUSTOM_SCALARS = {
    name: JSON_NODES if name == "JSON" else TEXT.map(nodes.String)
    for name, type_ in SCHEMA.type_map.items()
    if isinstance(type_, graphql.GraphQLScalarType) and not name.startswith("__")
    and name not in graphql.specified_scalar_types
}


@dataclass
class Fuzzer:
    """One app under fuzz, the ids it has handed out, and everything that went wrong."""

    client: TestClient
    tracebacks: list[str]
    pool: list[str] = field(default_factory=list)
    sent: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)  # data, or the first error's code
    failures: dict[str, list[str]] = field(default_factory=dict)

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """A request the fuzzer makes for its own bookkeeping (seeding, reading the head); must succeed."""
        response = self.client.post("/graphql", json={"query": query, "variables": variables or {}})
        assert response.status_code == 200, response.text
        body = response.json()
        assert "errors" not in body, body
        self.harvest(body.get("data"))
        return body["data"]

    def head(self) -> tuple[int, str]:
        head = self.post(HEAD)["head"]
        return head["seq"], head["hash"]

    def harvest(self, value: Any, key: str | None = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                self.harvest(v, k)
        elif isinstance(value, list):
            for v in value:
                self.harvest(v, key)
        elif isinstance(value, str) and key in HARVESTED and value not in self.pool and len(self.pool) < 500:
            self.pool.append(value)

    def send(self, kind: str, root: str, query: str) -> dict[str, Any] | None:
        """Send one generated request; record any server error against `root`; the body, if any."""
        self.sent[kind] += 1
        del self.tracebacks[:]
        try:
            response = self.client.post("/graphql", json={"query": query})
        except Exception:  # an exception escaping the app is the 500 a real client would get
            self.fail(root, query, "exception escaped the app", traceback.format_exc())
            return None
        if response.status_code >= 500:
            self.fail(root, query, f"HTTP {response.status_code}: {response.text[:500]}")
            return None
        body = response.json()
        errors = body.get("errors") or []
        self.answers[(errors[0].get("extensions") or {}).get("code", "GRAPHQL") if errors else "data"] += 1
        masked = [e for e in body.get("errors") or [] if e.get("message") == MASKED]
        if masked:
            self.fail(root, query, f"masked error at {[e.get('path') for e in masked]}", *self.tracebacks)
        self.harvest(body.get("data"))
        return body

    def fail(self, root: str, query: str, what: str, *details: str) -> None:
        self.failures.setdefault(root, []).append("\n".join([what, query, *details]))

    def reuse_ids(self, data: st.DataObject, document: graphql.DocumentNode) -> str:
        """The document printed, with some of its string literals swapped for ids the store knows."""
        pool = list(self.pool)

        class Swap(graphql.Visitor):
            def enter_string_value(self, node: graphql.StringValueNode, *_: Any) -> graphql.StringValueNode | None:
                if pool and data.draw(st.booleans(), label="reuse an id"):
                    # An index drawn from a fixed range: the pool grows as the run goes, and a draw
                    # whose bounds changed between examples would make hypothesis call the strategy flaky.
                    return graphql.StringValueNode(value=pool[data.draw(ID_INDEX, label="id index") % len(pool)])
                return None

        return graphql.print_ast(graphql.visit(document, Swap()))


class _Tracebacks(logging.Handler):
    """Keeps the tracebacks strawberry logs for unexpected errors, for the failure report."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.into.append("".join(traceback.format_exception(*record.exc_info))[-3000:])


SEED = [
    ('mutation { note(text: "seeded") { seq } }', None),
    ('mutation { declareObserver(observer: "cam") { id } }', None),
    ('mutation { observe(observer: "cam", tick: 5, kind: "seen", subject: "door") { rows { id subject } } }', None),
    ("mutation($i: ItemInput!) { addItem(item: $i) { id } }",
     {"i": {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "blue"}, "source": "person"}}),
    ("mutation($i: ItemInput!) { addItem(item: $i) { id } }",
     {"i": {"kind": "fact", "body": {"s": "door", "r": "colour", "o": "red"}, "source": "person"}}),
    ('{ disputes { totalCount edges { cursor node { id key values items openedAt } } } }', None),
    ('mutation { createBelief(proposition: "the door is open", subject: "door", '
     'evidence: [{weight: 0.8, family: "camera:cam"}]) { belief { id } evidence } }', None),
    ('mutation { say(text: "The door is open. I think the pump is fine.", speaker: "alice", tick: 6) '
     '{ observation { id } assertions { id belief evidence } } }', None),
    ('mutation { raiseFlag(why: "drift", scope: {}) { id } }', None),
    ('{ flags { totalCount edges { cursor node { id kind why pending covers coveredItems { id } } } } }', None),
]


@pytest.fixture(scope="module")
def fuzzer(module_backend: Backend, request: pytest.FixtureRequest) -> Iterator[Fuzzer]:
    tracebacks: list[str] = []
    handler = _Tracebacks(tracebacks)
    strawberry_log = logging.getLogger("strawberry.execution")
    with pytest.MonkeyPatch.context() as env:
        env.delenv("GRAPH_SERVICE_TOKENS_JSON", raising=False)  # open: every root field is reachable
        strawberry_log.addHandler(handler)
        try:
            with TestClient(create_app(module_backend.settings())) as client:
                fuzz = Fuzzer(client, tracebacks)
                for query, variables in SEED:
                    fuzz.post(query, variables)
                fuzz.pool += ["k-nope", "b404.1", "e404.1", "obs-404-0", "flag-404"]  # well-formed, unknown
                yield fuzz
        finally:
            strawberry_log.removeHandler(handler)
    # The tally, shown even under output capture: how much fuzzing this run actually did.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is not None and reporter is not None:
        with capture.global_and_fixture_disabled():
            failures = sum(map(len, fuzz.failures.values()))
            reporter.write_line(f"\nfuzz: {sum(fuzz.sent.values())} generated requests {dict(fuzz.sent)}, "
                                f"answered {dict(fuzz.answers)}, {failures} server errors, {len(fuzz.pool)} ids known")

# In CI the examples are derived from the test, not drawn afresh: a landing run is reproducible,
# and new ground is covered by local runs (and GRAPH_SERVICE_FUZZ_EXAMPLES for deeper ones).
FUZZ_SETTINGS = settings(max_examples=EXAMPLES_PER_FIELD, deadline=None, database=None,
                         derandomize=os.environ.get("CI") == "true",
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def report(fuzz: Fuzzer, root: str) -> str:
    found = fuzz.failures.get(root, [])
    return f"{len(found)} server error(s) on {root}:\n\n" + "\n\n".join(found)


@pytest.mark.parametrize("root", QUERY_FIELDS)
def test_generated_queries_never_fail_the_server_nor_write(fuzzer: Fuzzer, root: str) -> None:
    strategy = queries(SCHEMA, fields=[root], custom_scalars=CUSTOM_SCALARS, print_ast=lambda doc: doc)
    before = fuzzer.sent["query"]

    @FUZZ_SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        query = fuzzer.reuse_ids(data, data.draw(strategy, label="document"))
        head = fuzzer.head()
        fuzzer.send("query", root, query)
        if fuzzer.head() != head:
            fuzzer.fail(root, query, f"a query moved the journal head from {head} to {fuzzer.head()}")

    run()
    assert fuzzer.sent["query"] > before
    assert root not in fuzzer.failures, report(fuzzer, root)


@pytest.mark.parametrize("root", MUTATION_FIELDS)
def test_generated_mutations_never_fail_the_server_and_rejections_write_nothing(fuzzer: Fuzzer, root: str) -> None:
    # One root field per mutation, so "rejected" is unambiguous: an error and no data for that field.
    strategy = mutations(SCHEMA, fields=[root], custom_scalars=CUSTOM_SCALARS, print_ast=lambda doc: doc)
    before = fuzzer.sent["mutation"]

    @FUZZ_SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        query = fuzzer.reuse_ids(data, data.draw(strategy, label="document"))
        head = fuzzer.head()
        body = fuzzer.send("mutation", root, query)
        rejected = body is not None and body.get("errors") and (body.get("data") or {}).get(root) is None
        if rejected and fuzzer.head() != head:
            fuzzer.fail(root, query, f"a rejected mutation moved the journal head from {head} to {fuzzer.head()}",
                        str(body["errors"]))

    run()
    assert fuzzer.sent["mutation"] > before
    assert root not in fuzzer.failures, report(fuzzer, root)


@pytest.mark.parametrize("operation", ["query", "mutation"])
def test_documents_that_break_the_schema_are_refused_cleanly(fuzzer: Fuzzer, operation: str) -> None:
    # Negative mode: each document violates the schema once (a wrong type, a missing argument...).
    make = queries if operation == "query" else mutations
    strategy = make(SCHEMA, custom_scalars=CUSTOM_SCALARS, mode=Mode.NEGATIVE)
    root = f"invalid {operation}"

    @settings(FUZZ_SETTINGS, max_examples=NEGATIVE_EXAMPLES)
    @given(query=strategy)
    def run(query: str) -> None:
        head = fuzzer.head()
        body = fuzzer.send(f"invalid {operation}", root, query)
        if body is not None and not body.get("errors"):
            fuzzer.fail(root, query, "a document that breaks the schema was accepted")
        if fuzzer.head() != head:
            fuzzer.fail(root, query, f"an invalid document moved the journal head from {head} to {fuzzer.head()}")

    run()
    assert root not in fuzzer.failures, report(fuzzer, root)
