"""Choose the backend: Neo4j when a URI is configured, else the embedded FalkorDB on the data folder."""

from __future__ import annotations

from graph_service.config import Settings
from graph_service.storage.port import GraphPort


def connect(connection: dict[str, str]) -> GraphPort:
    """A new client of the store another process serves, as its `GraphPort.connection()` describes it
    (an embedded server is used where it runs, never started)."""
    if connection.get("backend") == "neo4j":
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        return Neo4jGraph(connection["uri"], connection["user"], connection["password"], connection["database"])
    if connection.get("backend") == "falkordb":
        from graph_service.storage.falkordb_adapter import FalkorDBGraph

        return FalkorDBGraph(socket_path=connection["socket"], graph=connection["graph"])
    raise ValueError(f"no backend {connection.get('backend')!r} to connect to")


def open_graph(settings: Settings) -> GraphPort:
    """Connect to (or start) the configured backend."""
    if settings.neo4j_uri:
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        return Neo4jGraph(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    return FalkorDBGraph.embedded(settings.data_dir)
