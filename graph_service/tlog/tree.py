"""Merkle tree hashes and proofs over the stored-hash layout, pure: no database, no I/O.

The tree is RFC 9162 section 2.1 with SHA-256 over the journal's entries, leaf index seq-1. The store
keeps, for the entry at position `seq`, the list tree(seq) = [h_0, ..., h_k] where k is the number of
trailing zero bits of seq: h_0 is the entry's leaf hash and h_L the hash of the perfect subtree of 2^L
leaves ending with it, covering leaves [seq - 2^L, seq). A stored hash is addressed as (seq, level).

Appending entry `seq` reads `new_subtree_needs(seq)` and writes `stored_hashes_for(...)`. A root or a
proof reads only the stored hashes its `*_needs` function names, O(log n) of them, through a `get`
callable, so a store can fetch them in one query and answer from a dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from graph_service.tlog.verifier import EMPTY_ROOT, HASH_SIZE, leaf_hash, node_hash

Subtree = tuple[int, int]
"""A perfect subtree as (level, index): the 2^level leaves [index * 2^level, (index + 1) * 2^level)."""

StoredKey = tuple[int, int]
"""Where a stored hash lives: (seq, level), the level-th hash kept with the entry at position seq."""

HashGetter = Callable[[int, int], bytes]
"""Reads the stored hash at (seq, level): 32 bytes."""

_Range = tuple[int, int]


def _check_int(value: object, name: str, minimum: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _check_hash(value: object, what: str) -> bytes:
    if not isinstance(value, bytes | bytearray) or len(value) != HASH_SIZE:
        raise ValueError(f"{what} must be {HASH_SIZE} bytes, got {value!r:.80}")
    return bytes(value)


def subtree_seq(level: int, index: int) -> StoredKey:
    """Where the perfect subtree (level, index) is stored: (seq, level) with seq = (index + 1) * 2^level."""
    _check_int(level, "level", 0)
    _check_int(index, "index", 0)
    return ((index + 1) << level, level)


def new_subtree_needs(seq: int) -> list[StoredKey]:
    """The stored hashes that appending the entry at `seq` reads: (seq - 2^L, L) for L below seq's trailing zeros.

    In level order; tree(seq)[L + 1] = node_hash(tree(seq - 2^L)[L], tree(seq)[L]).
    """
    _check_int(seq, "seq", 1)
    levels = (seq & -seq).bit_length() - 1
    return [(seq - (1 << level), level) for level in range(levels)]


def stored_hashes_for(seq: int, leaf: bytes, have: Mapping[StoredKey, bytes]) -> list[bytes]:
    """tree(seq) for the entry at `seq` whose leaf input is `leaf` (its canonical bytes, not its leaf hash).

    `have` must hold every key of new_subtree_needs(seq); a missing key or a value that is not 32 bytes
    raises ValueError. The result has 1 + (trailing zero bits of seq) hashes, level 0 first.
    """
    needs = new_subtree_needs(seq)
    if not isinstance(leaf, bytes | bytearray):
        raise ValueError(f"leaf must be the entry's canonical bytes, not {type(leaf).__name__}")
    current = leaf_hash(leaf)
    hashes = [current]
    for key in needs:
        if key not in have:
            raise ValueError(f"have lacks the stored hash {key} needed for seq {seq}")
        current = node_hash(_check_hash(have[key], f"have[{key}]"), current)
        hashes.append(current)
    return hashes


def _split(size: int) -> int:
    """The largest power of two strictly below `size` (size >= 2): RFC 9162's k."""
    return 1 << ((size - 1).bit_length() - 1)


def _cover(lo: int, hi: int) -> list[Subtree]:
    """The perfect subtrees whose right fold is MTH(D[lo:hi]), left to right.

    Every range the RFC recursion produces starts at a multiple of a power of two no smaller than its
    length, so each greedy piece is aligned and is one stored hash.
    """
    pieces = []
    while lo < hi:
        level = (hi - lo).bit_length() - 1
        pieces.append((level, lo >> level))
        lo += 1 << level
    return pieces


def _read(get: HashGetter, key: StoredKey) -> bytes:
    return _check_hash(get(*key), f"get{key}")


def _range_hash(lo: int, hi: int, get: HashGetter) -> bytes:
    """MTH(D[lo:hi]) for a non-empty range the RFC recursion produces, from stored hashes."""
    hashes = [_read(get, subtree_seq(*piece)) for piece in _cover(lo, hi)]
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def _needs(ranges: list[_Range]) -> set[StoredKey]:
    return {subtree_seq(*piece) for lo, hi in ranges for piece in _cover(lo, hi)}


def _inclusion_ranges(index: int, size: int) -> list[_Range]:
    """The leaf ranges whose hashes are PATH(index, D[0:size]) (RFC 9162 2.1.3.1), bottom-up."""
    ranges: list[_Range] = []
    lo, hi, m = 0, size, index
    while hi - lo > 1:
        k = _split(hi - lo)
        if m < k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo, m = lo + k, m - k
    ranges.reverse()
    return ranges


def _consistency_ranges(m: int, n: int) -> list[_Range]:
    """The leaf ranges whose hashes are PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true) (RFC 9162 2.1.4.1)."""
    ranges: list[_Range] = []
    lo, hi, whole = 0, n, True
    while hi - lo != m:
        k = _split(hi - lo)
        if m <= k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        ranges.append((lo, hi))
    ranges.reverse()
    return ranges


def _check_inclusion_args(index: int, size: int) -> None:
    _check_int(size, "size", 1)
    _check_int(index, "index", 0)
    if index >= size:
        raise ValueError(f"index {index} must be below size {size}")


def _check_consistency_args(m: int, n: int) -> None:
    _check_int(m, "m", 1)
    _check_int(n, "n", 1)
    if m > n:
        raise ValueError(f"m ({m}) must not exceed n ({n})")


def root_needs(size: int) -> set[StoredKey]:
    """The stored hashes root_hash(size) reads: one per set bit of size (none for the empty tree)."""
    _check_int(size, "size", 0)
    return _needs([(0, size)]) if size else set()


def inclusion_needs(index: int, size: int) -> set[StoredKey]:
    """The stored hashes inclusion_proof(index, size) reads: O(log size) of them."""
    _check_inclusion_args(index, size)
    return _needs(_inclusion_ranges(index, size))


def consistency_needs(m: int, n: int) -> set[StoredKey]:
    """The stored hashes consistency_proof(m, n) reads: O(log n) of them."""
    _check_consistency_args(m, n)
    return _needs(_consistency_ranges(m, n))


def root_hash(size: int, get: HashGetter) -> bytes:
    """MTH of the first `size` leaves (RFC 9162 2.1.1); the empty tree's root, SHA-256(""), for size 0."""
    _check_int(size, "size", 0)
    return _range_hash(0, size, get) if size else EMPTY_ROOT


def inclusion_proof(index: int, size: int, get: HashGetter) -> list[bytes]:
    """PATH(index, D[0:size]) of RFC 9162 2.1.3.1: sibling hashes from the leaf up; needs 0 <= index < size."""
    _check_inclusion_args(index, size)
    return [_range_hash(lo, hi, get) for lo, hi in _inclusion_ranges(index, size)]


def consistency_proof(m: int, n: int, get: HashGetter) -> list[bytes]:
    """PROOF(m, D[0:n]) of RFC 9162 2.1.4.1, empty for m == n; needs 0 < m <= n."""
    _check_consistency_args(m, n)
    return [_range_hash(lo, hi, get) for lo, hi in _consistency_ranges(m, n)]
