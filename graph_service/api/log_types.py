"""GraphQL types of the tamper-evident log: signed checkpoints, inclusion and consistency proofs (RFC 9162).

Hashes are base64 (as in C2SP checkpoints); docs/log-format.md says how a client checks each one, and
graph_service.tlog.verifier is a standalone checker.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import strawberry

from graph_service.api.context import service_of
from graph_service.api.errors import user_errors
from graph_service.journal import proofs


@strawberry.type(description="A signed checkpoint of the journal: tree size, root hash and time, as a C2SP "
                             "signed note. Keep one to detect later rewrites or rollbacks (verify --against).")
class Checkpoint:
    size: int = strawberry.field(description="The number of entries the tree covers.")
    root: str = strawberry.field(description="The RFC 9162 root hash of those entries (base64).")
    time: datetime = strawberry.field(description="When it was signed (UTC).")
    origin: str = strawberry.field(description="The log's origin line.")
    note: str = strawberry.field(description="The checkpoint as a C2SP signed note (the text to keep).")
    verifier_key: str = strawberry.field(description="The key that checks the note: name+keyhash+base64 key.")


@strawberry.type(description="An RFC 9162 inclusion proof of one entry in the tree of the first `treeSize` entries.")
class InclusionProof:
    seq: int = strawberry.field(description="The entry's journal position (its leaf index is seq - 1).")
    tree_size: int = strawberry.field(description="The number of entries of the tree it proves inclusion in.")
    leaf_hash: str = strawberry.field(description="SHA-256(0x00 || RFC 8785 bytes of the entry), base64.")
    hashes: list[str] = strawberry.field(description="The audit path, leaf to root, base64.")
    root: str = strawberry.field(description="The root hash at treeSize, base64.")


@strawberry.type(description="An RFC 9162 consistency proof: the tree of `fromSize` entries is a prefix of "
                             "the tree of `toSize` entries.")
class ConsistencyProof:
    from_size: int = strawberry.field(description="The smaller tree's number of entries.")
    to_size: int = strawberry.field(description="The larger tree's number of entries.")
    hashes: list[str] = strawberry.field(description="The proof's hashes, base64.")
    from_root: str = strawberry.field(description="The root hash at fromSize, base64.")
    to_root: str = strawberry.field(description="The root hash at toSize, base64.")


@strawberry.type
class LogQuery:
    @strawberry.field(description="A signed checkpoint of the journal as it is now.")
    @user_errors
    def checkpoint(self, info: strawberry.Info[Any, Any]) -> Checkpoint:
        service = service_of(info)
        size, root, at, note = service.checkpoint()
        return Checkpoint(size=size, root=proofs.b64(root), time=datetime.fromtimestamp(at / 1000, UTC),
                          origin=service.origin, note=note, verifier_key=service.signer.verifier_key())

    @strawberry.field(description="Prove that the entry at `seq` is in the tree of the first `size` entries "
                                  "(default: the whole journal).")
    @user_errors
    def inclusion_proof(self, info: strawberry.Info[Any, Any],
                        seq: Annotated[int, strawberry.argument(description="The entry's journal position, from 1.")],
                        size: Annotated[int | None, strawberry.argument(
                            description="The tree's number of entries, seq to the journal's length; null: the "
                                        "whole journal.")] = None) -> InclusionProof:
        journal = service_of(info).journal
        journal.catch_up()
        proof = proofs.inclusion(journal.graph, seq, journal.seq if size is None else size, journal.seq)
        return InclusionProof(seq=proof.seq, tree_size=proof.size, leaf_hash=proofs.b64(proof.leaf_hash),
                              hashes=[proofs.b64(h) for h in proof.hashes], root=proofs.b64(proof.root))

    @strawberry.field(description="Prove that the tree of `from` entries is a prefix of the tree of `to` "
                                  "entries (default: the whole journal).")
    @user_errors
    def consistency_proof(self, info: strawberry.Info[Any, Any],
                          first: Annotated[int, strawberry.argument(
                              name="from", description="The smaller tree's number of entries (a checkpoint's size).")],
                          to: Annotated[int | None, strawberry.argument(
                              description="The larger tree's number of entries; null: the whole journal.")] = None,
                          ) -> ConsistencyProof:
        journal = service_of(info).journal
        journal.catch_up()
        proof = proofs.consistency(journal.graph, first, journal.seq if to is None else to, journal.seq)
        return ConsistencyProof(from_size=proof.first, to_size=proof.second,
                                hashes=[proofs.b64(h) for h in proof.hashes],
                                from_root=proofs.b64(proof.first_root), to_root=proofs.b64(proof.second_root))
