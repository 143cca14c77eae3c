"""Merkle proofs and signed checkpoints over the journal as stored: each costs O(log n) stored hashes,
read in one query (graph_service.tlog.tree names them), whatever the journal's length."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from graph_service.errors import JournalBroken, UserError
from graph_service.storage.port import GraphPort
from graph_service.tlog import tree
from graph_service.tlog.tree import HashGetter, StoredKey


def b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode("ascii")


def stored_hashes(graph: GraphPort, needs: set[StoredKey]) -> HashGetter:
    """A reader of exactly these stored tree hashes, fetched at once."""
    rows = graph.run("entry_tree_hashes", {"seqs": sorted({seq for seq, _ in needs})}) if needs else []
    table: dict[StoredKey, bytes] = {}
    for row in rows:
        for level, digest in enumerate(row.get("tree") or ()):
            if (row["seq"], level) in needs:
                table[(row["seq"], level)] = bytes.fromhex(digest)

    def get(seq: int, level: int) -> bytes:
        try:
            return table[(seq, level)]
        except KeyError:
            raise JournalBroken(f"the Merkle tree hash of level {level} stored with entry {seq} is missing; "
                                "run verify") from None

    return get


def _check_size(size: int, head: int, field: str) -> None:
    if not 1 <= size <= head:
        raise UserError(f"{field}: {size} is not a tree size of this journal (1..{head})", field=field)


@dataclass(frozen=True)
class InclusionProof:
    seq: int
    size: int
    leaf_hash: bytes
    hashes: list[bytes]
    root: bytes


@dataclass(frozen=True)
class ConsistencyProof:
    first: int
    second: int
    hashes: list[bytes]
    first_root: bytes
    second_root: bytes


def root_at(graph: GraphPort, size: int, head: int) -> bytes:
    """The root hash of the first `size` entries."""
    _check_size(size, head, "size")
    return tree.root_hash(size, stored_hashes(graph, tree.root_needs(size)))


def inclusion(graph: GraphPort, seq: int, size: int, head: int) -> InclusionProof:
    """RFC 9162 inclusion proof of the entry at `seq` in the tree of the first `size` entries."""
    _check_size(size, head, "size")
    if not 1 <= seq <= size:
        raise UserError(f"seq: {seq} is not a position in a tree of {size} entries", field="seq")
    get = stored_hashes(graph, tree.inclusion_needs(seq - 1, size) | tree.root_needs(size) | {(seq, 0)})
    return InclusionProof(seq, size, get(seq, 0), tree.inclusion_proof(seq - 1, size, get), tree.root_hash(size, get))


def consistency(graph: GraphPort, first: int, second: int, head: int) -> ConsistencyProof:
    """RFC 9162 consistency proof between the trees of the first `first` and `second` entries."""
    _check_size(second, head, "to")
    if not 1 <= first <= second:
        raise UserError(f"from: {first} is not a tree size from 1 to {second}", field="from")
    get = stored_hashes(graph, tree.consistency_needs(first, second) | tree.root_needs(first)
                        | tree.root_needs(second))
    return ConsistencyProof(first, second, tree.consistency_proof(first, second, get), tree.root_hash(first, get),
                            tree.root_hash(second, get))

