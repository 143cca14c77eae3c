"""Whole-journal work off the request path: verify (the chain, and the graph against a replay of it), rebuild,
redecide and the reads as of a position that read every node's history, each run by a process of its own that
the service keeps between jobs, with its progress on a board that requests read (docs/stateless-path.md)."""
