"""Settings from the environment: nothing is required; pointing at Neo4j is one variable."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    """Where the data lives and how the API is exposed."""

    data_dir: Path = Path("data")
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = "neo4j"
    neo4j_database: str = "neo4j"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    """How many processes serve the API (`serve`); see graph_service/serving.py."""
    graphiql: bool = True
    introspection: bool = True
    tokens_file: Path | None = None
    signing_key: Path | None = None
    """The Ed25519 key that signs checkpoints (note PRIVATE+KEY text); default: checkpoint.key in data_dir."""
    signer_name: str = "graph_service"
    log_origin: str | None = None
    """The checkpoints' origin line; default: graph_service/<the store's log id>."""
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Settings:
        """GRAPH_SERVICE_DATA, NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD/NEO4J_DATABASE, GRAPH_SERVICE_HOST/PORT,
        GRAPH_SERVICE_WORKERS, GRAPH_SERVICE_GRAPHIQL, GRAPH_SERVICE_INTROSPECTION, GRAPH_SERVICE_TOKENS,
        GRAPH_SERVICE_SIGNING_KEY, GRAPH_SERVICE_SIGNER_NAME, GRAPH_SERVICE_LOG_ORIGIN."""
        tokens = os.environ.get("GRAPH_SERVICE_TOKENS")
        return cls(
            data_dir=Path(os.environ.get("GRAPH_SERVICE_DATA", "data")),
            neo4j_uri=os.environ.get("NEO4J_URI") or None,
            neo4j_user=os.environ.get("NEO4J_USER", "neo4j"),
            neo4j_password=os.environ.get("NEO4J_PASSWORD", "neo4j"),
            neo4j_database=os.environ.get("NEO4J_DATABASE", "neo4j"),
            host=os.environ.get("GRAPH_SERVICE_HOST", "127.0.0.1"),
            port=int(os.environ.get("GRAPH_SERVICE_PORT", "8000")),
            workers=int(os.environ.get("GRAPH_SERVICE_WORKERS", "1")),
            graphiql=_flag("GRAPH_SERVICE_GRAPHIQL", True),
            introspection=_flag("GRAPH_SERVICE_INTROSPECTION", True),
            tokens_file=Path(tokens) if tokens else None,
            signing_key=Path(os.environ["GRAPH_SERVICE_SIGNING_KEY"]) if os.environ.get("GRAPH_SERVICE_SIGNING_KEY")
            else None,
            signer_name=os.environ.get("GRAPH_SERVICE_SIGNER_NAME", "graph_service"),
            log_origin=os.environ.get("GRAPH_SERVICE_LOG_ORIGIN") or None,
        )
