"""The Merkle frontier read back from the tree hashes stored with O(log n) entries (Frontier.restored) is the one a
writer that appended every entry keeps: the same levels, the same root and the same hashes for the next entry."""

from __future__ import annotations

import pytest

from graph_service.journal.frontier import Frontier, frontier_positions


def test_a_frontier_read_back_at_every_size_is_the_one_kept_while_appending() -> None:
    kept, trees = Frontier(), {}
    for seq in range(1, 300):
        tree = kept.tree_for(seq, f"entry {seq}".encode())
        kept.advance(seq, tree)
        trees[seq] = tree
        positions = frontier_positions(seq)
        assert len(set(positions.values())) <= seq.bit_length()  # O(log n) entries read
        restored = Frontier.restored(seq, {at: trees[at] for at in positions.values()})
        assert restored.root() == kept.root() and restored.size == seq
        assert restored.tree_for(seq + 1, b"next") == kept.tree_for(seq + 1, b"next")


def test_a_frontier_is_not_read_back_from_entries_that_lack_a_level() -> None:
    kept, trees = Frontier(), {}
    for seq in range(1, 9):
        trees[seq] = kept.tree_for(seq, bytes([seq]))
        kept.advance(seq, trees[seq])
    with pytest.raises(ValueError, match="the entry at 8 stores no tree hash at level 3"):
        Frontier.restored(8, {**trees, 8: trees[8][:3]})
    assert frontier_positions(0) == {} and Frontier.restored(0, {}).root() == Frontier().root()
