"""A writer process for the concurrency and crash tests (run as `python -m tests.integration.journal_writer`).

Modes:
  socket PATH NAME N  — connect to a running FalkorDB on PATH and append N notes "NAME-i";
  owner DATA NAME     — own an embedded server on DATA (like the service) and append notes forever;
  neo4j URI NAME [N]  — connect to Neo4j at URI and append N notes (forever without N), after "ready".
Each acknowledged write is printed as "seq text" and flushed, so the parent knows what was acknowledged.
"""

from __future__ import annotations

import sys

from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal
from graph_service.storage.falkordb_adapter import FalkorDBGraph


def append(journal: Journal, name: str, count: int | None) -> None:
    i = 0
    while count is None or i < count:
        text = f"{name}-{i}"
        result = journal.write(name, lambda text=text: plan_note(text))
        sys.stdout.write(f"{result.entry.seq} {text}\n")
        sys.stdout.flush()
        i += 1


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode == "socket":
        graph = FalkorDBGraph(socket_path=argv[1])
        append(Journal(graph, [NoteDomain()]).open(), argv[2], int(argv[3]))
    elif mode == "owner":
        graph = FalkorDBGraph.embedded(argv[1])
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        append(Journal(graph, [NoteDomain()]).open(), argv[2], None)
    elif mode == "neo4j":
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        graph = Neo4jGraph(argv[1], "neo4j", "neo4j")
        journal = Journal(graph, [NoteDomain()]).open()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        append(journal, argv[2], int(argv[3]) if len(argv) > 3 else None)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    graph.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
