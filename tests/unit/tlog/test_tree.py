"""The Merkle tree over stored hashes against a naive RFC 9162 reference, for every small size and at random."""

from __future__ import annotations

import functools
import hashlib
import math
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.tlog import tree
from graph_service.tlog.checkpoint import Signer, sign_checkpoint
from graph_service.tlog.verifier import canonical_bytes, leaf_hash, verify_consistency, verify_inclusion
from tests.unit.tlog import Store, entry_leaf

# The naive reference: RFC 9162 section 2.1 transcribed, recursing over lists of leaf inputs.


def ref_split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def ref_mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]), RFC 9162 2.1.1."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = ref_split(len(leaves))
    return hashlib.sha256(b"\x01" + ref_mth(leaves[:k]) + ref_mth(leaves[k:])).digest()


def ref_path(m: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]), RFC 9162 2.1.3.1."""
    if len(leaves) == 1:
        return []
    k = ref_split(len(leaves))
    if m < k:
        return [*ref_path(m, leaves[:k]), ref_mth(leaves[k:])]
    return [*ref_path(m - k, leaves[k:]), ref_mth(leaves[:k])]


def ref_subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b), RFC 9162 2.1.4.1."""
    n = len(leaves)
    if m == n:
        return [] if whole else [ref_mth(leaves)]
    k = ref_split(n)
    if m <= k:
        return [*ref_subproof(m, leaves[:k], whole), ref_mth(leaves[k:])]
    return [*ref_subproof(m - k, leaves[k:], False), ref_mth(leaves[:k])]


def ref_proof(m: int, leaves: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]), RFC 9162 2.1.4.1."""
    return ref_subproof(m, leaves, True)


SMALL = 70
LARGE = 2500


@functools.cache
def small_store() -> Store:
    return Store.of_size(SMALL)


@functools.cache
def large_store() -> Store:
    return Store.of_size(LARGE)


def read_exactly(store: Store, needs: set[tuple[int, int]]) -> None:
    """The proof just made read each of `needs`, and nothing else; then forget the reads."""
    assert set(store.reads) == needs
    store.reads.clear()


# The stored-hash layout


def test_new_subtree_needs_names_the_completed_subtrees() -> None:
    assert tree.new_subtree_needs(1) == []
    assert tree.new_subtree_needs(2) == [(1, 0)]
    assert tree.new_subtree_needs(3) == []
    assert tree.new_subtree_needs(4) == [(3, 0), (2, 1)]
    assert tree.new_subtree_needs(8) == [(7, 0), (6, 1), (4, 2)]
    assert tree.new_subtree_needs(12) == [(11, 0), (10, 1)]


def test_subtree_seq_is_the_seq_of_the_subtrees_last_leaf() -> None:
    assert tree.subtree_seq(0, 0) == (1, 0)
    assert tree.subtree_seq(0, 6) == (7, 0)
    assert tree.subtree_seq(2, 1) == (8, 2)
    assert tree.subtree_seq(3, 0) == (8, 3)


def test_incrementally_stored_hashes_are_the_perfect_subtrees_ending_at_each_entry() -> None:
    store = small_store()
    leaves = store.leaves
    for seq in range(1, SMALL + 1):
        levels = (seq & -seq).bit_length()
        stored = [store.hashes[(seq, level)] for level in range(levels)]
        assert (seq, levels) not in store.hashes
        assert stored == [ref_mth(leaves[seq - 2**level : seq]) for level in range(levels)]


def test_stored_hashes_for_refuses_what_it_was_not_given() -> None:
    store = small_store()
    with pytest.raises(ValueError, match=r"have lacks the stored hash \(6, 1\)"):
        tree.stored_hashes_for(8, entry_leaf(8), {(7, 0): store.hashes[(7, 0)], (4, 2): store.hashes[(4, 2)]})
    with pytest.raises(ValueError, match=r"have\[\(1, 0\)\] must be 32 bytes"):
        tree.stored_hashes_for(2, entry_leaf(2), {(1, 0): b"short"})
    with pytest.raises(ValueError, match="seq must be at least 1"):
        tree.stored_hashes_for(0, entry_leaf(1), {})


# Roots and proofs against the reference, every size up to SMALL


@pytest.mark.parametrize("size", range(0, SMALL + 1))
def test_root_matches_the_reference(size: int) -> None:
    store = small_store()
    root = tree.root_hash(size, store.get)
    assert root == ref_mth(store.leaves[:size])
    read_exactly(store, tree.root_needs(size))
    assert len(tree.root_needs(size)) == size.bit_count()


@pytest.mark.parametrize("size", range(1, SMALL + 1))
def test_every_inclusion_proof_matches_the_reference_and_verifies(size: int) -> None:
    store = small_store()
    leaves = store.leaves[:size]
    root = ref_mth(leaves)
    for index in range(size):
        proof = tree.inclusion_proof(index, size, store.get)
        read_exactly(store, tree.inclusion_needs(index, size))
        assert proof == ref_path(index, leaves)
        verify_inclusion(leaf_hash(leaves[index]), index, size, proof, root)


@pytest.mark.parametrize("n", range(1, SMALL + 1))
def test_every_consistency_proof_matches_the_reference_and_verifies(n: int) -> None:
    store = small_store()
    root_n = ref_mth(store.leaves[:n])
    for m in range(1, n + 1):
        proof = tree.consistency_proof(m, n, store.get)
        read_exactly(store, tree.consistency_needs(m, n))
        assert proof == ref_proof(m, store.leaves[:n])
        verify_consistency(m, n, proof, ref_mth(store.leaves[:m]), root_n)


def test_the_leaf_input_is_the_entrys_canonical_bytes() -> None:
    body = {"seq": 3, "op": "note", "by": "ann", "at": 5, "payload": {"b": 1.0, "a": "é", "c": [1e21, 0.1]}}
    expected = '{"at":5,"by":"ann","op":"note","payload":{"a":"é","b":1,"c":[1e+21,0.1]},"seq":3}'
    assert canonical_bytes(body) == expected.encode("utf-8")
    store = Store([canonical_bytes(body)])
    assert tree.root_hash(1, store.get) == hashlib.sha256(b"\x00" + canonical_bytes(body)).digest()


# Larger sizes at random


@settings(max_examples=40)
@given(data=st.data())
def test_random_larger_trees_match_the_reference(data: st.DataObject) -> None:
    store = large_store()
    n = data.draw(st.integers(SMALL + 1, LARGE), label="n")
    index = data.draw(st.integers(0, n - 1), label="index")
    m = data.draw(st.integers(1, n), label="m")
    leaves = store.leaves[:n]
    root = tree.root_hash(n, store.get)
    assert root == ref_mth(leaves)
    proof = tree.inclusion_proof(index, n, store.get)
    assert proof == ref_path(index, leaves)
    verify_inclusion(leaf_hash(leaves[index]), index, n, proof, root)
    consistency = tree.consistency_proof(m, n, store.get)
    assert consistency == ref_proof(m, leaves)
    verify_consistency(m, n, consistency, ref_mth(leaves[:m]), root)


# What a proof costs


def test_a_proof_in_a_million_entries_reads_few_stored_hashes() -> None:
    n = 10**6
    log_n = math.log2(n)
    bound = 2 * log_n**2
    rng = random.Random(9162)
    indexes = [0, 1, n // 2, n - 2, n - 1, *rng.sample(range(n), 200)]
    sizes = [1, 2, n // 2, n - 1, n, *rng.sample(range(1, n + 1), 200)]
    inclusion = max(len(tree.inclusion_needs(index, n)) for index in indexes)
    consistency = max(len(tree.consistency_needs(m, n)) for m in sizes)
    assert len(tree.root_needs(n)) == n.bit_count()
    assert inclusion <= bound and consistency <= bound
    # Stronger than the O(log^2 n) promise: at most one proof hash spans a non-perfect range.
    assert inclusion <= 2 * math.ceil(log_n) and consistency <= 2 * math.ceil(log_n)

    reads: list[tuple[int, int]] = []

    def recording(seq: int, level: int) -> bytes:
        assert 1 <= seq <= n and seq % (1 << level) == 0
        reads.append((seq, level))
        return bytes(32)

    tree.inclusion_proof(n // 3, n, recording)
    assert set(reads) == tree.inclusion_needs(n // 3, n)
    reads.clear()
    tree.consistency_proof(n // 3, n, recording)
    assert set(reads) == tree.consistency_needs(n // 3, n)


# Arguments


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda get: tree.root_hash(-1, get), "size must be at least 0"),
        (lambda get: tree.inclusion_proof(-1, 5, get), "index must be at least 0"),
        (lambda get: tree.inclusion_proof(5, 5, get), "index 5 must be below size 5"),
        (lambda get: tree.inclusion_proof(0, 0, get), "size must be at least 1"),
        (lambda get: tree.inclusion_proof(True, 5, get), "index must be an integer"),
        (lambda get: tree.inclusion_proof(0, 2.0, get), "size must be an integer"),
        (lambda get: tree.consistency_proof(0, 5, get), "m must be at least 1"),
        (lambda get: tree.consistency_proof(6, 5, get), r"m \(6\) must not exceed n \(5\)"),
        (lambda get: tree.consistency_proof(1, 0, get), "n must be at least 1"),
        (lambda get: tree.inclusion_needs(3, 3), "index 3 must be below size 3"),
        (lambda get: tree.consistency_needs(4, 3), r"m \(4\) must not exceed n \(3\)"),
        (lambda get: tree.root_needs(-2), "size must be at least 0"),
        (lambda get: tree.new_subtree_needs(0), "seq must be at least 1"),
        (lambda get: tree.subtree_seq(-1, 0), "level must be at least 0"),
        (lambda get: tree.root_hash(3, lambda seq, level: b"\x00" * 31), r"get\(2, 1\) must be 32 bytes"),
    ],
)
def test_bad_arguments_are_refused_by_name(call: Callable[[tree.HashGetter], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(small_store().get)


# The worked example of docs/log-format.md, as known answers


DOC = Path(__file__).resolve().parents[3] / "docs" / "log-format.md"
EXAMPLE_ROOT_7 = "de75d089e2566256dcd8d1eff7e5d0cc079de461cafbc5a9eeb2ab9cc83d1dcc"
EXAMPLE_ROOT_3 = "28d183fd8dd5cc059a4ed7732b81dc75a1985eaee99af9d360cd370d509f7962"
EXAMPLE_INCLUSION_4 = [
    "ebc36a663d9f2a27b1c18aff62a8c8a4f638661d6c1acc4b4b8a82f28ed6c9e5",
    "8352f53e720ebdb96da2d2437cfe4e11e1b1dda2935389b9614e5c40e4dfd28c",
    "af807d05deec7c3853f04f0152d7f3c2296ed2e35b9eb3e0b3313020ddb2ef26",
]
EXAMPLE_CONSISTENCY_3_7 = [
    "f603f3e07c5062a1264d6a86f21d409c6ca3fb7e08ff3dcdd15dfdea9dc50c84",
    "3b44f22d541092e8e3115ba625a0ad4720e847ab0767cb1c6adb4c9a7b06376a",
    "e3288e818059b9a14f724bf6c064cb0940053dd0c059ad38b6fcae207230f292",
    "e47301cc5abff6d09ad8fe7990543e57b725e46d8e0c22f2eab4a6001dbde277",
]


def example_store() -> Store:
    bodies = [
        {"seq": seq, "op": "note", "by": "ann", "at": 1_700_000_000_000 + seq, "payload": {"text": f"entry {seq}"}}
        for seq in range(1, 8)
    ]
    return Store([canonical_bytes(body) for body in bodies])


def test_the_worked_example_of_the_format_document() -> None:
    store = example_store()
    root_7, root_3 = tree.root_hash(7, store.get), tree.root_hash(3, store.get)
    inclusion = tree.inclusion_proof(4, 7, store.get)
    consistency = tree.consistency_proof(3, 7, store.get)
    assert (root_7.hex(), root_3.hex()) == (EXAMPLE_ROOT_7, EXAMPLE_ROOT_3)
    assert [h.hex() for h in inclusion] == EXAMPLE_INCLUSION_4
    assert [h.hex() for h in consistency] == EXAMPLE_CONSISTENCY_3_7
    verify_inclusion(leaf_hash(store.leaves[4]), 4, 7, inclusion, root_7)
    verify_consistency(3, 7, consistency, root_3, root_7)
    document = DOC.read_text(encoding="utf-8")
    for value in [EXAMPLE_ROOT_7, EXAMPLE_ROOT_3, *EXAMPLE_INCLUSION_4, *EXAMPLE_CONSISTENCY_3_7]:
        assert value in document
    for (seq, level), value in store.hashes.items():
        assert f"| ({seq}, {level}) |" in document and value.hex() in document


def test_the_worked_example_checkpoint_is_signed_as_documented() -> None:
    store = example_store()
    seed = hashlib.sha256(b"graph_service log-format example key").digest()
    signer = Signer("example.org/graph-service/log", Ed25519PrivateKey.from_private_bytes(seed))
    note = sign_checkpoint(signer, "example.org/graph-service/log", 7, tree.root_hash(7, store.get), 1_700_000_000_007)
    document = DOC.read_text(encoding="utf-8")
    assert note in document
    assert signer.private_key_text() in document and signer.verifier_key() in document


def test_an_inclusion_proof_fits_another_size_of_the_same_shape_as_the_document_warns() -> None:
    store = small_store()
    proof = tree.inclusion_proof(0, 4, store.get)
    verify_inclusion(leaf_hash(store.leaves[0]), 0, 3, proof, tree.root_hash(4, store.get))
