"""Tests of the transparency log (graph_service.tlog), and the journal-like leaves and store they share."""

from __future__ import annotations

from graph_service.tlog import tree
from graph_service.tlog.verifier import canonical_bytes


def entry_leaf(seq: int) -> bytes:
    """The leaf input of a plausible journal entry at `seq`: its RFC 8785 bytes, with non-ASCII text."""
    body = {"seq": seq, "op": "note", "by": "ann", "at": 1_700_000_000_000 + seq, "payload": {"text": f"entry {seq} é"}}
    return canonical_bytes(body)


class Store:
    """The stored hashes of a journal, appended one entry at a time exactly as a database would."""

    def __init__(self, leaves: list[bytes]) -> None:
        self.leaves = list(leaves)
        self.hashes: dict[tuple[int, int], bytes] = {}
        self.reads: list[tuple[int, int]] = []
        for seq, leaf in enumerate(self.leaves, start=1):
            have = {key: self.hashes[key] for key in tree.new_subtree_needs(seq)}
            for level, value in enumerate(tree.stored_hashes_for(seq, leaf, have)):
                self.hashes[(seq, level)] = value

    @classmethod
    def of_size(cls, size: int) -> Store:
        """A store of `size` entries whose leaves are entry_leaf(1..size)."""
        return cls([entry_leaf(seq) for seq in range(1, size + 1)])

    def get(self, seq: int, level: int) -> bytes:
        """The stored hash at (seq, level), recording the read."""
        self.reads.append((seq, level))
        return self.hashes[(seq, level)]
