"""Forged proofs, checkpoints, notes and keys: each kind is refused by the standalone verifier, with its reason.

The signing side's refusals (what it will not sign, key texts and key files it will not load) and a run of
verifier.py as a lone file close it.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.tlog import tree
from graph_service.tlog import verifier as verifier_module
from graph_service.tlog.checkpoint import (
    Signer,
    SignerKeyError,
    checkpoint_text,
    load_or_create_signer,
    sign_checkpoint,
    sign_note,
    signer_from_text,
)
from graph_service.tlog.verifier import (
    EMPTY_ROOT,
    CheckpointError,
    EntryError,
    ProofError,
    VerificationError,
    canonical_bytes,
    entry_leaf_hash,
    leaf_hash,
    node_hash,
    open_checkpoint,
    parse_verifier_key,
    verify_consistency,
    verify_inclusion,
)
from tests.unit.tlog import Store

LEAVES = 64
SIZES = [13, 5, 8, 21]
ORIGIN = "log.example/graph"


@functools.cache
def store() -> Store:
    return Store.of_size(LEAVES)


def root(size: int) -> bytes:
    return tree.root_hash(size, store().get)


def leaf(index: int) -> bytes:
    return leaf_hash(store().leaves[index])


def split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def inclusion_shape(index: int, size: int) -> tuple[str, ...]:
    """The side of each sibling on PATH(index, D[size]), bottom-up: what verification combines, in order."""
    if size == 1:
        return ()
    k = split(size)
    if index < k:
        return (*inclusion_shape(index, k), "right")
    return (*inclusion_shape(index - k, size - k), "left")


def consistency_shape(m: int, n: int, whole: bool = True) -> tuple[str, ...]:
    """What each hash of PROOF(m, D[n]) is: an old subtree, or a sibling on the left or the right."""
    if m == n:
        return () if whole else ("old",)
    k = split(n)
    if m <= k:
        return (*consistency_shape(m, k, whole), "right")
    return (*consistency_shape(m - k, n - k, False), "left")


# Entries


def body(**changes: Any) -> dict[str, Any]:
    return {"seq": 1, "op": "note", "by": "ann", "at": 5, "payload": {"text": "hi"}, **changes}


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ([1, 2], "is a JSON object, not list"),
        ({k: v for k, v in body().items() if k != "by"}, "exactly the keys"),
        (body(prev="0" * 64), "exactly the keys"),
        (body(seq=0), "seq must be a positive integer"),
        (body(seq=True), "seq must be a positive integer"),
        (body(seq="1"), "seq must be a positive integer"),
        (body(at=5.0), "at must be an integer"),
        (body(op=None), "op and by must be strings"),
        (body(payload=[1]), "payload must be a JSON object"),
        (body(payload={"x": float("nan")}), "no RFC 8785 form"),
        (body(payload={1: "x"}), "no RFC 8785 form"),
        (body(payload={"x": 2**60}), "no RFC 8785 form"),
        (body(at=2**60), "no RFC 8785 form"),
        (body(payload={"x": object()}), "no RFC 8785 form"),
        (body(payload=nested(100_000)), "no RFC 8785 form"),
    ],
)
def test_an_entry_the_log_cannot_hash_is_refused(entry: Any, reason: str) -> None:
    with pytest.raises(EntryError, match=reason):
        entry_leaf_hash(entry)


def test_an_entrys_leaf_hash_is_the_leaf_hash_of_its_canonical_bytes() -> None:
    assert canonical_bytes(body()) == b'{"at":5,"by":"ann","op":"note","payload":{"text":"hi"},"seq":1}'
    assert entry_leaf_hash(body()) == leaf_hash(canonical_bytes(body()))


# Inclusion


@dataclass(frozen=True)
class Inclusion:
    leaf: Any
    index: Any
    size: Any
    proof: Any
    root: Any

    def verify(self) -> None:
        verify_inclusion(self.leaf, self.index, self.size, self.proof, self.root)


def genuine_inclusion(size: int) -> Inclusion:
    index = size * 5 // 13
    return Inclusion(leaf(index), index, size, tree.inclusion_proof(index, size, store().get), root(size))


def other_size(claim: Inclusion) -> Inclusion:
    for size in (claim.size + 1, claim.size - 1, claim.size + 2, 2 * claim.size):
        if claim.index < size and inclusion_shape(claim.index, size) != inclusion_shape(claim.index, claim.size):
            return replace(claim, size=size)
    raise AssertionError("no size with another path shape")


def interior_node_as_leaf(claim: Inclusion) -> Inclusion:
    # The RFC's second-preimage attack: an interior node offered as a leaf one level up.
    first = claim.proof[0]
    node = node_hash(first, claim.leaf) if claim.index % 2 else node_hash(claim.leaf, first)
    return replace(claim, leaf=node, index=claim.index // 2, proof=claim.proof[1:])


INCLUSION_FORGERIES: dict[str, tuple[Callable[[Inclusion], Inclusion], str]] = {
    "other size": (other_size, "too many|too few|does not lead"),
    "size zero": (lambda c: replace(c, size=0), "is not below size 0"),
    "index at size": (lambda c: replace(c, index=c.size), "is not below size"),
    "negative index": (lambda c: replace(c, index=-1), "index must not be negative"),
    "bool index": (lambda c: replace(c, index=True), "index must be an integer"),
    "other index": (lambda c: replace(c, index=(c.index + 1) % c.size), "too many|too few|does not lead"),
    "swapped siblings": (lambda c: replace(c, proof=[c.proof[1], c.proof[0], *c.proof[2:]]), "does not lead"),
    "reversed path": (lambda c: replace(c, proof=c.proof[::-1]), "does not lead"),
    "missing last sibling": (lambda c: replace(c, proof=c.proof[:-1]), "too few"),
    "missing first sibling": (lambda c: replace(c, proof=c.proof[1:]), "too few"),
    "extended path": (lambda c: replace(c, proof=[*c.proof, root(c.size)]), "too many"),
    "extended path at the leaf": (lambda c: replace(c, proof=[leaf(0), *c.proof]), "too many"),
    "another leaf": (lambda c: replace(c, leaf=leaf(c.index + 1)), "does not lead"),
    "another leaf's proof": (
        lambda c: replace(c, proof=tree.inclusion_proof(c.index + 1, c.size, store().get)),
        "does not lead",
    ),
    "leaf data for leaf hash": (lambda c: replace(c, leaf=store().leaves[c.index][:32]), "does not lead"),
    "interior node as leaf": (interior_node_as_leaf, "too few"),
    "wrong root": (lambda c: replace(c, root=root(c.size - 1)), "does not lead"),
    "empty tree root": (lambda c: replace(c, root=EMPTY_ROOT), "does not lead"),
    "truncated sibling": (lambda c: replace(c, proof=[c.proof[0][:31], *c.proof[1:]]), "proof hash 0 must be 32 bytes"),
    "long sibling": (lambda c: replace(c, proof=[*c.proof[:-1], c.proof[-1] + b"\0"]), "must be 32 bytes, not 33"),
    "truncated root": (lambda c: replace(c, root=c.root[:16]), "root must be 32 bytes"),
    "truncated leaf": (lambda c: replace(c, leaf=c.leaf[:-1]), "leaf hash must be 32 bytes"),
    "hex sibling": (lambda c: replace(c, proof=[c.proof[0].hex(), *c.proof[1:]]), "must be 32 bytes, not str"),
    "proof as one byte string": (lambda c: replace(c, proof=b"".join(c.proof)), "a proof is a list"),
    "no proof at all": (lambda c: replace(c, proof=None), "a proof is a list"),
}


@pytest.mark.parametrize("size", SIZES)
def test_the_genuine_inclusion_proofs_verify(size: int) -> None:
    genuine_inclusion(size).verify()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", INCLUSION_FORGERIES)
def test_a_forged_inclusion_proof_is_refused(kind: str, size: int) -> None:
    forge, reason = INCLUSION_FORGERIES[kind]
    forged = forge(genuine_inclusion(size))
    with pytest.raises(ProofError, match=reason) as refusal:
        forged.verify()
    assert refusal.value.reason == str(refusal.value)


# Consistency


@dataclass(frozen=True)
class Consistency:
    m: Any
    n: Any
    proof: Any
    root_m: Any
    root_n: Any

    def verify(self) -> None:
        verify_consistency(self.m, self.n, self.proof, self.root_m, self.root_n)


def genuine_consistency(n: int) -> Consistency:
    m = max(1, n * 5 // 13)
    return Consistency(m, n, tree.consistency_proof(m, n, store().get), root(m), root(n))


def other_m(claim: Consistency) -> Consistency:
    for m in (claim.m + 1, claim.m - 1, claim.m + 2):
        if 0 < m < claim.n and consistency_shape(m, claim.n) != consistency_shape(claim.m, claim.n):
            return replace(claim, m=m)
    raise AssertionError("no m with another proof shape")


def other_n(claim: Consistency) -> Consistency:
    for n in (claim.n + 1, claim.n - 1, claim.n + 2, 2 * claim.n):
        if claim.m < n and consistency_shape(claim.m, n) != consistency_shape(claim.m, claim.n):
            return replace(claim, n=n)
    raise AssertionError("no n with another proof shape")


CONSISTENCY_FORGERIES: dict[str, tuple[Callable[[Consistency], Consistency], str]] = {
    "m exceeds n": (lambda c: replace(c, m=c.n, n=c.m, root_m=c.root_n, root_n=c.root_m), "exceeds"),
    "equal sizes with a proof": (lambda c: replace(c, m=c.n, root_m=c.root_n), "between equal sizes .* is empty"),
    "equal sizes, other roots": (lambda c: replace(c, m=c.n, proof=[]), "different roots"),
    "from empty with a proof": (lambda c: replace(c, m=0, root_m=EMPTY_ROOT), "from the empty tree is empty"),
    "from empty, wrong root": (lambda c: replace(c, m=0, proof=[]), "not the empty tree's root"),
    "negative m": (lambda c: replace(c, m=-1), "m must not be negative"),
    "empty proof": (lambda c: replace(c, proof=[]), "cannot be empty"),
    "other m": (other_m, "too many|too few|does not lead"),
    "other n": (other_n, "too many|too few|does not lead"),
    "missing hash": (lambda c: replace(c, proof=c.proof[:-1]), "too few|does not lead|cannot be empty"),
    "missing first hash": (lambda c: replace(c, proof=c.proof[1:]), "too few|does not lead|cannot be empty"),
    "extra hash": (lambda c: replace(c, proof=[*c.proof, c.root_n]), "too many"),
    "swapped hashes": (lambda c: replace(c, proof=[c.proof[1], c.proof[0], *c.proof[2:]]), "does not lead"),
    "wrong root_m": (lambda c: replace(c, root_m=root(c.m + 1)), "does not lead to root_"),
    "wrong root_n": (lambda c: replace(c, root_n=root(c.n - 1)), "does not lead to root_n"),
    "roots swapped": (lambda c: replace(c, root_m=c.root_n, root_n=c.root_m), "does not lead to root_"),
    "truncated hash": (lambda c: replace(c, proof=[c.proof[0][:31], *c.proof[1:]]), "proof hash 0 must be 32 bytes"),
    "truncated root_m": (lambda c: replace(c, root_m=c.root_m[:31]), "root_m must be 32 bytes"),
    "truncated root_n": (lambda c: replace(c, root_n=b""), "root_n must be 32 bytes"),
    "proof of strings": (lambda c: replace(c, proof=[h.hex() for h in c.proof]), "must be 32 bytes, not str"),
}


@pytest.mark.parametrize("n", SIZES)
def test_the_genuine_consistency_proofs_verify(n: int) -> None:
    genuine = genuine_consistency(n)
    assert len(genuine.proof) >= 2
    genuine.verify()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", CONSISTENCY_FORGERIES)
def test_a_forged_consistency_proof_is_refused(kind: str, n: int) -> None:
    forge, reason = CONSISTENCY_FORGERIES[kind]
    with pytest.raises(ProofError, match=reason):
        forge(genuine_consistency(n)).verify()


def test_the_trivial_consistency_proofs_verify() -> None:
    verify_consistency(13, 13, [], root(13), root(13))
    verify_consistency(0, 13, [], EMPTY_ROOT, root(13))
    verify_consistency(0, 0, [], EMPTY_ROOT, EMPTY_ROOT)


# Checkpoints, notes and keys


@functools.cache
def signer() -> Signer:
    return Signer.generate(ORIGIN)


@functools.cache
def impostor() -> Signer:
    return Signer.generate(ORIGIN)


def genuine_note() -> str:
    return sign_checkpoint(signer(), ORIGIN, 13, root(13), 1_700_000_000_123)


def body_of(note: str) -> str:
    return note[: note.rindex("\n\n") + 1]


def signature_line(note: str) -> str:
    return note[note.rindex("\n\n") + 2 :]


def with_signature(note: str, edit: Callable[[bytes], bytes]) -> str:
    prefix, encoded = signature_line(note).rstrip("\n").rsplit(" ", 1)
    raw = edit(base64.b64decode(encoded))
    return f"{body_of(note)}\n{prefix} {base64.b64encode(raw).decode()}\n"


def flip(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1 :]


def signed_body(lines: list[str]) -> str:
    """A note whose signature is genuine over a malformed checkpoint body: the body parser must refuse it."""
    return sign_note(signer(), "".join(line + "\n" for line in lines))


def good_lines() -> list[str]:
    return body_of(genuine_note()).splitlines()


def replace_line(number: int, text: str) -> str:
    lines = good_lines()
    lines[number] = text
    return signed_body(lines)


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def noncanonical(encoded: str) -> str:
    """The same bytes in base64 with an unused low bit set: the last character before a single '=' has 2."""
    assert encoded.endswith("=") and not encoded.endswith("==")
    last = ALPHABET[ALPHABET.index(encoded[-2]) ^ 0x01]
    spelled = encoded[:-2] + last + "="
    assert base64.b64decode(spelled) == base64.b64decode(encoded)
    return spelled


def noncanonical_root() -> str:
    return replace_line(2, noncanonical(good_lines()[2]))


def noncanonical_signature() -> str:
    note = genuine_note()
    prefix, encoded = signature_line(note).rstrip("\n").rsplit(" ", 1)
    return f"{body_of(note)}\n{prefix} {noncanonical(encoded)}\n"


def other_note() -> str:
    return sign_checkpoint(signer(), ORIGIN, 12, root(12), 1_700_000_000_123)


NOTE_FORGERIES: dict[str, tuple[Callable[[], Any], str]] = {
    "flipped signature byte": (lambda: with_signature(genuine_note(), lambda raw: flip(raw, 20)), "does not verify"),
    "signature by another key of the same name": (
        lambda: sign_checkpoint(impostor(), ORIGIN, 13, root(13), 1_700_000_000_123),
        "no signature by",
    ),
    "signature by another name": (
        lambda: sign_checkpoint(Signer.generate("someone.else"), ORIGIN, 13, root(13), 1_700_000_000_123),
        r"no signature by .*someone\.else",
    ),
    "another key's signature under our key hash": (
        lambda: with_signature(
            sign_checkpoint(impostor(), ORIGIN, 13, root(13), 1_700_000_000_123),
            lambda raw: signer().key_hash.to_bytes(4, "big") + raw[4:],
        ),
        "does not verify",
    ),
    "signature of another checkpoint": (
        lambda: body_of(genuine_note()) + "\n" + signature_line(other_note()),
        "does not verify",
    ),
    "altered size": (lambda: genuine_note().replace("\n13\n", "\n14\n", 1), "does not verify"),
    "altered root": (lambda: genuine_note().replace(good_lines()[2], base64.b64encode(root(12)).decode()), "verify"),
    "altered origin": (lambda: genuine_note().replace(ORIGIN + "\n", ORIGIN + "x\n", 1), "does not verify"),
    "altered time": (lambda: genuine_note().replace("time 1700000000123", "time 1700000000124"), "does not verify"),
    "added extension line": (lambda: genuine_note().replace("123\n\n", "123\nextra\n\n"), "does not verify"),
    "no signature block": (lambda: body_of(genuine_note()), "no blank line|signature block"),
    "no blank line": (lambda: genuine_note().replace("\n\n", "\n"), "no blank line"),
    "no final newline": (lambda: genuine_note().rstrip("\n"), "does not end with a newline"),
    "hyphens for the em dash": (lambda: genuine_note().replace("\u2014 ", "-- "), "does not start with"),
    "signature not base64": (lambda: genuine_note().rsplit(" ", 1)[0] + " !!!!\n", "not standard padded base64"),
    "signature in non-canonical base64": (noncanonical_signature, "not canonical base64"),
    "signature too short": (lambda: with_signature(genuine_note(), lambda raw: raw[:4]), "too short"),
    "signature line without a signature": (lambda: body_of(genuine_note()) + f"\n\u2014 {ORIGIN}\n", "malformed"),
    "carriage returns": (lambda: genuine_note().replace("\n", "\r\n"), "control character"),
    "a NUL in the text": (lambda: genuine_note().replace(ORIGIN, ORIGIN + "\0", 1), "control character"),
    "a lone surrogate": (lambda: genuine_note().replace(ORIGIN, ORIGIN + "\ud800", 1), "not valid UTF-8"),
    "bytes that are not UTF-8": (lambda: genuine_note().encode() + b"\xff", "not valid UTF-8"),
    "not text": (lambda: 42, "a signed note is text"),
    "too many signatures": (
        lambda: genuine_note() + signature_line(sign_note(Signer.generate("w"), "x\n")) * 100,
        "more than 100 signatures",
    ),
    "three lines": (lambda: signed_body(good_lines()[:3]), "fewer than 4 lines"),
    "empty origin": (lambda: replace_line(0, ""), "origin line is empty"),
    "size with a leading zero": (lambda: replace_line(1, "013"), "tree size is not a decimal"),
    "size with a plus sign": (lambda: replace_line(1, "+13"), "tree size is not a decimal"),
    "size in Arabic-Indic digits": (lambda: replace_line(1, "\u0661\u0663"), "tree size is not a decimal"),
    "size with an underscore": (lambda: replace_line(1, "1_3"), "tree size is not a decimal"),
    "negative size": (lambda: replace_line(1, "-1"), "tree size is not a decimal"),
    "size beyond int64": (lambda: replace_line(1, str(2**63)), "exceeds 2\\^63-1"),
    "root of 31 bytes": (lambda: replace_line(2, base64.b64encode(root(13)[:31]).decode()), "31 bytes, not 32"),
    "root in hex": (lambda: replace_line(2, root(13).hex()), "48 bytes, not 32"),
    "root without padding": (lambda: replace_line(2, good_lines()[2].rstrip("=")), "not standard padded base64"),
    "root in non-canonical base64": (noncanonical_root, "not canonical base64"),
    "no time line": (lambda: replace_line(3, "1700000000123"), "is not 'time"),
    "time in seconds with a fraction": (lambda: replace_line(3, "time 1700000000.123"), "time is not a decimal"),
    "time with two spaces": (lambda: replace_line(3, "time  1700000000123"), "time is not a decimal"),
    "empty extension line": (lambda: signed_body([*good_lines(), ""]), "empty extension line"),
}


def test_the_genuine_note_opens() -> None:
    opened = open_checkpoint(genuine_note(), signer().verifier_key())
    assert (opened.origin, opened.size, opened.root, opened.time_ms) == (ORIGIN, 13, root(13), 1_700_000_000_123)
    assert opened.body == body_of(genuine_note())
    assert open_checkpoint(genuine_note().encode(), parse_verifier_key(signer().verifier_key())) == opened


def test_a_note_with_another_signature_besides_ours_opens() -> None:
    witnessed = genuine_note() + signature_line(sign_note(impostor(), body_of(genuine_note())))
    assert open_checkpoint(witnessed, signer().verifier_key()).size == 13
    assert open_checkpoint(witnessed, impostor().verifier_key()).size == 13


@pytest.mark.parametrize("kind", NOTE_FORGERIES)
def test_a_forged_or_malformed_note_is_refused(kind: str) -> None:
    make, reason = NOTE_FORGERIES[kind]
    with pytest.raises(CheckpointError, match=reason):
        open_checkpoint(make(), signer().verifier_key())


def key_text(name: str, hash_text: str, key: bytes) -> str:
    return f"{name}+{hash_text}+{base64.b64encode(key).decode()}"


def our_key() -> tuple[str, str, bytes]:
    name, hash_text, encoded = signer().verifier_key().split("+", 2)
    return name, hash_text, base64.b64decode(encoded)


KEY_FORGERIES: dict[str, tuple[Callable[[], Any], str]] = {
    "another key's hash": (lambda: key_text(ORIGIN, f"{impostor().key_hash:08x}", our_key()[2]), "does not match"),
    "another key under our hash": (lambda: key_text(*our_key()[:2], b"\x01" + impostor().public_key), "does not match"),
    "renamed": (lambda: key_text("log.example/other", *our_key()[1:]), "does not match"),
    "not Ed25519": (lambda: key_text(*our_key()[:2], b"\x02" + our_key()[2][1:]), "not an Ed25519 key"),
    "short key": (lambda: key_text(*our_key()[:2], our_key()[2][:-1]), "not an Ed25519 key"),
    "name with a space": (lambda: key_text("log example", *our_key()[1:]), "verifier key name"),
    "empty name": (lambda: key_text("", *our_key()[1:]), "verifier key name"),
    "hash of 7 digits": (lambda: key_text(ORIGIN, our_key()[1][1:], our_key()[2]), "not 8 hex digits"),
    "hash with a 0x": (lambda: key_text(ORIGIN, "0x" + our_key()[1][2:], our_key()[2]), "not 8 hex digits"),
    "key not base64": (lambda: f"{ORIGIN}+{our_key()[1]}+not*base64", "not standard padded base64"),
    "only a name": (lambda: ORIGIN, "is <name>"),
    "the private key": (lambda: signer().private_key_text(), "verifier key name|not 8 hex"),
    "not text": (lambda: None, "a verifier key is text"),
}


@pytest.mark.parametrize("kind", KEY_FORGERIES)
def test_a_forged_or_malformed_verifier_key_is_refused(kind: str) -> None:
    make, reason = KEY_FORGERIES[kind]
    with pytest.raises(CheckpointError, match=reason):
        parse_verifier_key(make())
    with pytest.raises(CheckpointError):
        open_checkpoint(genuine_note(), make())


# Properties


@st.composite
def inclusion_claims(draw: st.DrawFn) -> Inclusion:
    size = draw(st.integers(1, LEAVES), label="size")
    index = draw(st.integers(0, size - 1), label="index")
    return Inclusion(leaf(index), index, size, tree.inclusion_proof(index, size, store().get), root(size))


@st.composite
def consistency_claims(draw: st.DrawFn) -> Consistency:
    n = draw(st.integers(2, LEAVES), label="n")
    m = draw(st.integers(1, n - 1), label="m")
    return Consistency(m, n, tree.consistency_proof(m, n, store().get), root(m), root(n))


@given(claim=inclusion_claims(), data=st.data())
def test_flipping_any_byte_of_an_inclusion_proof_is_refused(claim: Inclusion, data: st.DataObject) -> None:
    claim.verify()
    hashes = [claim.leaf, *claim.proof, claim.root]
    which = data.draw(st.integers(0, len(hashes) - 1), label="which hash")
    position = data.draw(st.integers(0, 31), label="byte")
    mask = data.draw(st.integers(1, 255), label="mask")
    hashes[which] = hashes[which][:position] + bytes([hashes[which][position] ^ mask]) + hashes[which][position + 1 :]
    with pytest.raises(ProofError):
        replace(claim, leaf=hashes[0], proof=hashes[1:-1], root=hashes[-1]).verify()


@given(claim=consistency_claims(), data=st.data())
def test_flipping_any_byte_of_a_consistency_proof_is_refused(claim: Consistency, data: st.DataObject) -> None:
    claim.verify()
    hashes = [claim.root_m, *claim.proof, claim.root_n]
    which = data.draw(st.integers(0, len(hashes) - 1), label="which hash")
    position = data.draw(st.integers(0, 31), label="byte")
    mask = data.draw(st.integers(1, 255), label="mask")
    hashes[which] = hashes[which][:position] + bytes([hashes[which][position] ^ mask]) + hashes[which][position + 1 :]
    with pytest.raises(ProofError):
        replace(claim, root_m=hashes[0], proof=hashes[1:-1], root_n=hashes[-1]).verify()


@given(claim=inclusion_claims(), index=st.integers(-3, LEAVES + 3))
def test_an_inclusion_proof_for_another_index_is_refused(claim: Inclusion, index: int) -> None:
    if index != claim.index:
        with pytest.raises(ProofError):
            replace(claim, index=index).verify()


@given(claim=inclusion_claims(), size=st.integers(-2, 2 * LEAVES + 2))
def test_an_inclusion_proof_passes_for_another_size_only_where_the_path_is_the_same(
    claim: Inclusion, size: int
) -> None:
    # The root binds the leaves, not the size: RFC 9162 paths of one shape fit several sizes. A checkpoint
    # signs size and root together, so a verifier never pairs a root with another size.
    same_shape = claim.index < size and inclusion_shape(claim.index, size) == inclusion_shape(claim.index, claim.size)
    forged = replace(claim, size=size)
    if same_shape:
        forged.verify()
    else:
        with pytest.raises(ProofError):
            forged.verify()


@given(claim=consistency_claims(), m=st.integers(-2, LEAVES + 2), n=st.integers(-2, 2 * LEAVES + 2))
def test_a_consistency_proof_passes_for_other_sizes_only_where_the_proof_is_the_same(
    claim: Consistency, m: int, n: int
) -> None:
    same_shape = 0 < m <= n and consistency_shape(m, n) == consistency_shape(claim.m, claim.n)
    forged = replace(claim, m=m, n=n)
    if same_shape:
        forged.verify()
    else:
        with pytest.raises(ProofError):
            forged.verify()


junk = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=40),
    st.binary(max_size=40), st.lists(st.binary(min_size=30, max_size=34), max_size=8),
    st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=3),
)


@settings(max_examples=300)
@given(args=st.tuples(junk, junk, junk, junk, junk))
def test_junk_arguments_are_refused_as_verification_errors(args: tuple[Any, ...]) -> None:
    for call in (verify_inclusion, verify_consistency):
        with contextlib.suppress(VerificationError):
            call(*args)


@settings(max_examples=300)
@given(note=st.one_of(st.text(), st.binary(), junk), key=st.one_of(st.text(), junk))
def test_junk_notes_and_keys_are_refused_as_checkpoint_errors(note: Any, key: Any) -> None:
    with pytest.raises(CheckpointError):
        open_checkpoint(note, key)
    with pytest.raises(CheckpointError):
        open_checkpoint(note, signer().verifier_key())


@given(
    mutation=st.tuples(st.integers(0, 10**6), st.characters(codec="utf-8")),
)
def test_changing_any_character_of_a_genuine_note_is_refused(mutation: tuple[int, str]) -> None:
    note = genuine_note()
    position, character = mutation
    position %= len(note)
    if note[position] == character:
        return
    altered = note[:position] + character + note[position + 1 :]
    with pytest.raises(CheckpointError):
        open_checkpoint(altered, signer().verifier_key())


# The signing side: what it refuses to sign or load


def test_checkpoint_text_is_the_four_lines_the_verifier_reads() -> None:
    encoded = base64.b64encode(root(13)).decode()
    assert checkpoint_text(ORIGIN, 13, root(13), 5) == f"{ORIGIN}\n13\n{encoded}\ntime 5\n"
    assert body_of(sign_checkpoint(signer(), ORIGIN, 13, root(13), 5)) == checkpoint_text(ORIGIN, 13, root(13), 5)


@pytest.mark.parametrize(
    ("origin", "size", "digest", "time_ms", "message"),
    [
        ("", 13, bytes(32), 5, "origin must be a non-empty string"),
        ("a\nb", 13, bytes(32), 5, "origin must not contain a newline"),
        ("a\tb", 13, bytes(32), 5, "control character"),
        (ORIGIN, -1, bytes(32), 5, "size must be an integer from 0 to 2\\^63-1"),
        (ORIGIN, 2**63, bytes(32), 5, "size must be an integer"),
        (ORIGIN, True, bytes(32), 5, "size must be an integer"),
        (ORIGIN, 13, bytes(31), 5, "root must be 32 bytes"),
        (ORIGIN, 13, bytes(32).hex(), 5, "root must be 32 bytes"),
        (ORIGIN, 13, bytes(32), 1.5, "time_ms must be an integer"),
    ],
)
def test_checkpoint_text_refuses_what_no_verifier_would_open(
    origin: Any, size: Any, digest: Any, time_ms: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        checkpoint_text(origin, size, digest, time_ms)


def test_a_note_text_must_end_with_a_newline() -> None:
    with pytest.raises(ValueError, match="must end with a newline"):
        sign_note(signer(), "no newline")


def test_a_signer_key_text_round_trips_and_its_repr_keeps_the_secret() -> None:
    text = signer().private_key_text()
    again = signer_from_text(text)
    assert again.verifier_key() == signer().verifier_key() and again.private_key_text() == text
    assert text.split("+")[4] not in repr(again) and f"{signer().key_hash:08x}" in repr(again)


def signer_text_with(part: int, value: str) -> str:
    parts = signer().private_key_text().split("+", 4)
    parts[part] = value
    return "+".join(parts)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (lambda: signer_text_with(0, "PUBLIC"), "PRIVATE\\+KEY"),
        (lambda: signer_text_with(2, "log example"), "signer key name"),
        (lambda: signer_text_with(3, f"{impostor().key_hash:08x}"), "does not match"),
        (lambda: signer_text_with(3, "xyz"), "not 8 hex digits"),
        (lambda: signer_text_with(4, base64.b64encode(b"\x02" + bytes(32)).decode()), "not an Ed25519 key"),
        (lambda: signer_text_with(4, base64.b64encode(b"\x01" + bytes(31)).decode()), "not an Ed25519 key"),
        (lambda: signer_text_with(4, "***"), "not base64"),
        (lambda: signer().verifier_key(), "PRIVATE\\+KEY"),
        (lambda: b"PRIVATE+KEY", "a signer key is text"),
    ],
)
def test_a_malformed_signer_key_text_is_refused(text: Callable[[], Any], message: str) -> None:
    with pytest.raises(SignerKeyError, match=message) as refusal:
        signer_from_text(text())
    assert signer().private_key_text().split("+")[4] not in str(refusal.value)


@pytest.mark.parametrize("name", ["", "has space", "has+plus", "tab\there", "nbsp\u00a0here", "nul\0"])
def test_a_signer_needs_a_valid_key_name(name: str) -> None:
    with pytest.raises(SignerKeyError, match="is not a key name"):
        Signer.generate(name)


def test_a_key_file_is_created_once_with_mode_0600_and_then_loaded(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "checkpoint.key"
    created = load_or_create_signer(path, ORIGIN)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text(encoding="ascii") == created.private_key_text() + "\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["checkpoint.key"]
    loaded = load_or_create_signer(path, ORIGIN)
    assert loaded.verifier_key() == created.verifier_key()
    note = sign_checkpoint(loaded, ORIGIN, 13, root(13), 5)
    assert open_checkpoint(note, created.verifier_key()).size == 13


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "does not hold a signer key"),
        ("not a key\n", "does not hold a signer key"),
        ("PRIVATE+KEY+log.example/graph+00000000+AQ==\n", "does not hold a signer key"),
    ],
)
def test_a_key_file_that_does_not_parse_is_a_clear_error_and_is_kept(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "checkpoint.key"
    path.write_text(content, encoding="ascii")
    with pytest.raises(SignerKeyError, match=message) as refusal:
        load_or_create_signer(path, ORIGIN)
    assert str(path) in str(refusal.value)
    assert path.read_text(encoding="ascii") == content


def test_a_key_file_for_another_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.key"
    path.write_text(signer().private_key_text() + "\n", encoding="ascii")
    with pytest.raises(SignerKeyError, match=r"holds the key 'log\.example/graph', not 'other\.example'"):
        load_or_create_signer(path, "other.example")


def test_a_key_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.key"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(SignerKeyError, match="cannot read the signer key file"):
        load_or_create_signer(path, ORIGIN)


def test_the_verifier_runs_as_a_lone_file_importing_nothing_of_graph_service(tmp_path: Path) -> None:
    shutil.copy(Path(verifier_module.__file__), tmp_path / "tlog_verifier.py")
    claim = genuine_inclusion(13)
    program = f"""
import sys
sys.path.insert(0, {str(tmp_path)!r})
import tlog_verifier as v
v.verify_inclusion(bytes.fromhex({claim.leaf.hex()!r}), {claim.index}, {claim.size},
                   [bytes.fromhex(h) for h in {[h.hex() for h in claim.proof]!r}], bytes.fromhex({claim.root.hex()!r}))
print(v.open_checkpoint({genuine_note()!r}, {signer().verifier_key()!r}).size)
print(sorted(name for name in sys.modules if name.startswith("graph_service")))
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["13", "[]"]
