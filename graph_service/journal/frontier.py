"""The right edge of the journal's Merkle tree, kept by a writer: O(log n) hashes, pure.

For each level, the last completed perfect subtree (its position and hash). That is all an append
needs to compute the tree hashes stored with the new entry (graph_service.tlog.tree), and all a
root of the current size needs. Every hash is computed from entry bodies, never read back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graph_service.tlog.tree import root_hash, stored_hashes_for


def frontier_positions(size: int) -> dict[int, int]:
    """{level: the position whose stored tree hashes hold the frontier's subtree at that level} after `size`
    entries: the last entry that completed a subtree of each level (the entry at a multiple of 2^level)."""
    return {level: size - size % (1 << level) for level in range(size.bit_length()) if size - size % (1 << level)}


class Frontier:
    """The Merkle frontier after `size` entries."""

    def __init__(self) -> None:
        self.size = 0
        self._levels: dict[int, tuple[int, bytes]] = {}

    @classmethod
    def restored(cls, size: int, trees: Mapping[int, Sequence[bytes]]) -> Frontier:
        """The frontier after `size` entries from the tree hashes stored with the entries at
        `frontier_positions(size)` (O(log n) of them), where a writer that did not append them all starts from;
        ValueError when one lacks the level asked of it."""
        frontier = cls()
        for level, seq in frontier_positions(size).items():
            tree = trees.get(seq, ())
            if len(tree) <= level:
                raise ValueError(f"the entry at {seq} stores no tree hash at level {level}")
            frontier._levels[level] = (seq, bytes(tree[level]))
        frontier.size = size
        return frontier

    def tree_for(self, seq: int, leaf_input: bytes) -> list[bytes]:
        """The tree hashes to store with the entry at `seq` (= size + 1) whose canonical bytes are given."""
        if seq != self.size + 1:
            raise ValueError(f"the frontier is at {self.size}; it cannot hash entry {seq}")
        have = {(at, level): digest for level, (at, digest) in self._levels.items()}
        return stored_hashes_for(seq, leaf_input, have)

    def advance(self, seq: int, tree: list[bytes]) -> None:
        """Take the entry at `seq` with its tree hashes (from tree_for) as the new right edge."""
        if seq != self.size + 1:
            raise ValueError(f"the frontier is at {self.size}; it cannot take entry {seq}")
        for level, digest in enumerate(tree):
            self._levels[level] = (seq, digest)
        self.size = seq

    def root(self) -> bytes:
        """The RFC 9162 root hash of the first `size` entries."""
        stored = {(at, level): digest for level, (at, digest) in self._levels.items()}
        return root_hash(self.size, lambda at, level: stored[(at, level)])
