"""The journal's transparency log: RFC 9162 Merkle proofs and signed checkpoints (docs/log-format.md)."""
