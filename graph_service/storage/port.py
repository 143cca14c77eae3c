"""The graph port: run a named, parameterised query and get rows. Every backend adapter keeps it."""

from __future__ import annotations

from typing import Protocol

from graph_service.types import Params, Row


class GraphPort(Protocol):
    """A graph database as the service sees it."""

    backend: str

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        """Run the query `cypher/<name>.cypher` atomically with these parameters; rows as dicts."""
        ...

    def setup_schema(self) -> None:
        """Create indexes and constraints (idempotent) and wait until they are operational."""
        ...

    def health(self) -> dict[str, object]:
        """Liveness of the backend (raises when it cannot serve); an owned server that died is restarted."""
        ...

    def close(self) -> None:
        """Release connections (and stop an embedded server the adapter owns)."""
        ...

    def connection(self) -> dict[str, str]:
        """How another process connects to this very store (`storage.open.connect`); holds a password on
        Neo4j, so it is passed on a pipe, never on a command line."""
        ...


class ConstraintViolation(Exception):
    """A uniqueness constraint refused a write (e.g. two writers raced for one journal position)."""
