"""A missing node is null with one NOT_FOUND error naming it; the fields beside it are answered
(issue 13 part 4: a missing item used to null the whole response)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.integration.graphql_client import gql

# (the lookup, the name its error must carry)
LOOKUPS = [
    ('item(id: "k-missing") { id }', "'k-missing'"),
    # An id spelling how a read of every key is shown in messages is an id like any other (it read every item).
    ('item(id: "<every key>") { id }', "'<every key>'"),
    ('belief(id: "b404.1") { id }', "'b404.1'"),
    ('observation(id: "obs-404-0") { id }', "'obs-404-0'"),
    ("journalEntry(seq: 404) { seq }", "position 404"),
]


@pytest.mark.parametrize(("lookup", "named"), LOOKUPS,
                         ids=[f"{lk.split('(')[0]}-{n}" for n, (lk, _) in enumerate(LOOKUPS)])
def test_a_missing_node_is_null_and_its_siblings_intact(client: TestClient, lookup: str, named: str) -> None:
    gql(client, 'mutation { note(text: "something to be at") { seq } }')
    body = gql(client, f"{{ a: {lookup} b: head {{ seq }} }}")
    assert body["data"] == {"a": None, "b": {"seq": 1}}
    (error,) = body["errors"]
    assert named in error["message"] and error["path"] == ["a"]
    assert error["extensions"]["code"] == "NOT_FOUND"
