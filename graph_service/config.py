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


KNOWLEDGE_MODES = ("memory", "graph")
"""Settings.knowledge, .beliefs, .stream and .questions: the whole state in memory, or none (read from the graph
as each write needs). "graph" is the default: with all four, a start replays nothing and the service's memory does
not grow with the store; "memory" trades that for cheaper writes on a small store (README, "Where the state is
held")."""

DEFAULT_MODE = "graph"


def _mode(name: str) -> str:
    """One of KNOWLEDGE_MODES from the variable `name` (DEFAULT_MODE when unset or empty); ValueError naming it
    otherwise."""
    mode = os.environ.get(name, DEFAULT_MODE).strip().lower() or DEFAULT_MODE
    if mode not in KNOWLEDGE_MODES:
        raise ValueError(f"{name} must be one of {', '.join(KNOWLEDGE_MODES)}, not {os.environ[name]!r}")
    return mode


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
    knowledge: str = DEFAULT_MODE
    """Where the service keeps the knowledge state it plans and applies knowledge writes on: "memory" (the whole
    state, rebuilt by replaying the journal at start) or "graph" (none: each knowledge write reads from the graph
    what its rules read, and a start takes the knowledge entries as the graph holds them). See KNOWLEDGE_MODES."""
    beliefs: str = DEFAULT_MODE
    """Where the service keeps the belief layer it plans and applies belief writes on: "memory" (the whole layer,
    rebuilt by replaying the journal at start) or "graph" (none: each belief write reads from the graph what its
    rules read, and a start applies nothing of the entries the graph holds to it). See KNOWLEDGE_MODES."""
    stream: str = DEFAULT_MODE
    """Where the service keeps the stream's and the statements' state (observers, their views and rows' pairs, who
    spoke last to whom): "memory" (rebuilt by replaying the journal at start) or "graph" (none: each stream or
    statement write reads from the graph the parts it touches, and a start applies nothing of the entries the graph
    holds to them). See KNOWLEDGE_MODES."""
    questions: str = DEFAULT_MODE
    """Where the service keeps the unknowns and questions it plans and applies question writes on: "memory"
    (rebuilt by replaying the journal at start) or "graph" (none: each question write reads from the graph the
    unknowns and questions it touches, a ranking every open one, and a start applies nothing of the entries the
    graph holds to them). See KNOWLEDGE_MODES."""
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Settings:
        """GRAPH_SERVICE_DATA, NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD/NEO4J_DATABASE, GRAPH_SERVICE_HOST/PORT,
        GRAPH_SERVICE_WORKERS, GRAPH_SERVICE_GRAPHIQL, GRAPH_SERVICE_INTROSPECTION, GRAPH_SERVICE_TOKENS,
        GRAPH_SERVICE_SIGNING_KEY, GRAPH_SERVICE_SIGNER_NAME, GRAPH_SERVICE_LOG_ORIGIN, GRAPH_SERVICE_KNOWLEDGE,
        GRAPH_SERVICE_BELIEFS, GRAPH_SERVICE_STREAM, GRAPH_SERVICE_QUESTIONS.
        ValueError naming the variable for a value it does not take."""
        tokens = os.environ.get("GRAPH_SERVICE_TOKENS")
        knowledge, beliefs = _mode("GRAPH_SERVICE_KNOWLEDGE"), _mode("GRAPH_SERVICE_BELIEFS")
        stream, questions = _mode("GRAPH_SERVICE_STREAM"), _mode("GRAPH_SERVICE_QUESTIONS")
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
            knowledge=knowledge,
            beliefs=beliefs,
            stream=stream,
            questions=questions,
        )
