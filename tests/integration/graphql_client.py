"""Posting GraphQL to the app in tests."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient


def gql(client: TestClient, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of a GraphQL POST (which must answer 200)."""
    response = client.post("/graphql", json={"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.text
    return response.json()
