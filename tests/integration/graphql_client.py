"""Posting GraphQL to the app in tests."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient


def gql(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of a GraphQL POST (which must answer 200)."""
    response = client.post("/graphql", json={"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.text
    return response.json()


def data(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `data` of a GraphQL POST that must answer without errors (they are shown when it does not)."""
    body = gql(client, query, variables)
    assert "errors" not in body, body["errors"]
    return body["data"]


def head_seq(client: TestClient) -> int:
    """The journal's head position, read over the API."""
    return data(client, "{ head { seq } }")["head"]["seq"]
