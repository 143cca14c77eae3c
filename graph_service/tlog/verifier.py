"""A standalone verifier for the journal's transparency log (docs/log-format.md).

This module imports only the standard library, `cryptography` and `rfc8785`, so it can be copied out
of the service and run by anyone who holds a checkpoint, an entry and a proof.

- Entries: `canonical_bytes` (RFC 8785) and `entry_leaf_hash`.
- Merkle proofs, RFC 9162 section 2.1 with SHA-256: `verify_inclusion`, `verify_consistency`.
- Checkpoints (C2SP tlog-checkpoint) in signed notes (C2SP signed-note, Ed25519): `parse_verifier_key`,
  `open_checkpoint`, `parse_checkpoint_body`.

Every refusal is a `ProofError`, `CheckpointError` or `EntryError` (all `VerificationError`) whose
`reason` says what was wrong; malformed input never surfaces as another exception type.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The root hash of the tree with no leaves (RFC 9162: the hash of the empty string)."""

ALG_ED25519 = 0x01
"""The signature algorithm byte that prefixes Ed25519 keys in note key texts."""

MAX_DECIMAL = 2**63 - 1
"""The largest tree size or time a checkpoint may carry (Go's int64, so the Go tools read every checkpoint)."""

MAX_SIGNATURES = 100
"""The most signature lines a note may have (as Go's note.Open), so a hostile note cannot cost unbounded work."""

ENTRY_KEYS = frozenset({"seq", "op", "by", "at", "payload"})

_SIG_PREFIX = "\u2014 "  # EM DASH, space: C2SP signed-note's signature line prefix
# Go's unicode.IsSpace, the whitespace a note key name must not contain.
_GO_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                      "\u2028\u2029\u202f\u205f\u3000")
_DECIMAL = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_HEX8 = re.compile(r"[0-9a-fA-F]{8}", re.ASCII)
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", re.ASCII)


class VerificationError(Exception):
    """A refusal: `reason` says, for a person, what was wrong."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ProofError(VerificationError):
    """An inclusion or consistency proof that does not prove what it claims."""


class CheckpointError(VerificationError):
    """A checkpoint, signed note or key text that is malformed or not signed by the expected key."""


class EntryError(VerificationError):
    """A journal entry body that is not of the shape the log hashes."""


# Entries


def _is_int(value: object) -> TypeGuard[int]:
    # bool is an int subclass; True is no tree size or position.
    return isinstance(value, int) and not isinstance(value, bool)


def canonical_bytes(body: dict[str, Any]) -> bytes:
    """The RFC 8785 (JCS) UTF-8 bytes of an entry body {"seq", "op", "by", "at", "payload"}: the leaf input.

    Refuses with EntryError anything else: other or missing keys, a seq that is not a positive integer,
    an `at` that is not an integer, a non-string op or by, a payload that is not an object, or a payload
    that JCS cannot represent (non-string keys, NaN, integers beyond 2^53, non-JSON values).
    """
    if not isinstance(body, dict):
        raise EntryError(f"an entry body is a JSON object, not {type(body).__name__}")
    if set(body) != ENTRY_KEYS:
        raise EntryError(f"an entry body has exactly the keys {sorted(ENTRY_KEYS)}, not {sorted(map(str, body))}")
    if not _is_int(body["seq"]) or body["seq"] < 1:
        raise EntryError("entry seq must be a positive integer")
    if not _is_int(body["at"]):
        raise EntryError("entry at must be an integer (epoch milliseconds)")
    if not isinstance(body["op"], str) or not isinstance(body["by"], str):
        raise EntryError("entry op and by must be strings")
    if not isinstance(body["payload"], dict):
        raise EntryError("entry payload must be a JSON object")
    fast = jcs_by_the_c_encoder(body)
    if fast is not None:
        return fast
    try:
        return rfc8785.dumps(body)
    except (rfc8785.CanonicalizationError, RecursionError) as exc:
        raise EntryError(f"entry body has no RFC 8785 form: {exc}") from exc


_JCS_INT = 2**53 - 1  # beyond it JCS (I-JSON) has no exact integer; rfc8785 refuses


def jcs_by_the_c_encoder(value: Any) -> bytes | None:
    """The RFC 8785 bytes of `value` from the standard library's C JSON encoder, or None where its
    output could differ from JCS (then the caller asks `rfc8785`, which also names what is refused).

    Where the two agree, and why this checks only that: for str, int, bool, None, lists and dicts with
    str keys, JCS's serialisation is JSON.stringify's, which is `json.dumps` with sorted keys, no
    whitespace and no ASCII escaping (the same escapes: the short ones for quote, backslash and
    \\b \\f \\n \\r \\t, lower-case \\u00xx for other controls, nothing else). They part on:
    - floats whose Python form has an exponent (1e-05, 1e+16: ECMAScript writes 0.00001 and
      10000000000000000), which go the slow way, and integral floats (1.0, -0.0: ECMAScript writes
      1 and 0), which are written as those integers;
    - non-finite floats and integers beyond 2^53, which JCS refuses;
    - keys ordered by UTF-16 code units against code points, which differ only from U+D800 up, so
      any such character in the output sends the whole value the slow way.
    On the benchmark mix's entries every one takes the fast path, at about a third of the cost.
    """
    stack = [value]
    integral = False
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return None
                stack.append(child)
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return None
            if item.is_integer():
                if abs(item) > _JCS_INT:
                    return None
                integral = True  # ECMAScript writes it as the integer (and -0 as 0)
            elif "e" in repr(item):
                return None
        elif kind is int:
            if not -_JCS_INT <= item <= _JCS_INT:
                return None
        elif kind is not str and kind is not bool and item is not None:
            return None
    if integral:
        value = _integral_floats_as_ints(value)
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    except (ValueError, RecursionError):
        return None
    if not text.isascii() and max(text) >= "\ud800":
        return None
    return text.encode("utf-8")


def _integral_floats_as_ints(value: Any) -> Any:
    # Below 2^53 an integral double's digits are its integer's: the shortest that round-trip.
    kind = type(value)
    if kind is dict:
        return {key: _integral_floats_as_ints(child) for key, child in value.items()}
    if kind is list:
        return [_integral_floats_as_ints(child) for child in value]
    if kind is float and value.is_integer():
        return int(value)
    return value


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 leaf hash: SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + bytes(data)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + bytes(left) + bytes(right)).digest()


def entry_leaf_hash(body: dict[str, Any]) -> bytes:
    """The leaf hash of a journal entry: leaf_hash(canonical_bytes(body))."""
    return leaf_hash(canonical_bytes(body))


# Merkle proofs


def _hash_arg(value: object, what: str) -> bytes:
    if not isinstance(value, bytes | bytearray):
        raise ProofError(f"{what} must be {HASH_SIZE} bytes, not {type(value).__name__}")
    if len(value) != HASH_SIZE:
        raise ProofError(f"{what} must be {HASH_SIZE} bytes, not {len(value)}")
    return bytes(value)


def _proof_arg(proof: object) -> list[bytes]:
    if not isinstance(proof, list | tuple):
        raise ProofError(f"a proof is a list of hashes, not {type(proof).__name__}")
    return [_hash_arg(item, f"proof hash {position}") for position, item in enumerate(proof)]


def _size_arg(value: object, what: str) -> int:
    if not _is_int(value):
        raise ProofError(f"{what} must be an integer, not {type(value).__name__}")
    if value < 0:
        raise ProofError(f"{what} must not be negative, got {value}")
    return value


def verify_inclusion(leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes) -> None:
    """Return if `proof` proves the leaf with hash `leaf_hash` is at `index` in the tree of `size` with `root`.

    The algorithm is RFC 9162 section 2.1.3.2; a proof with a hash too many or too few, siblings in the
    wrong order, or for another leaf, index or shape of tree is refused with ProofError. The root binds
    the leaves, not the size: callers take `size` and `root` together from one signed checkpoint.
    """
    leaf = _hash_arg(leaf_hash, "leaf hash")
    index = _size_arg(index, "index")
    size = _size_arg(size, "size")
    path = _proof_arg(proof)
    want = _hash_arg(root, "root")
    if index >= size:
        raise ProofError(f"index {index} is not below size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise ProofError(f"inclusion proof has too many hashes ({len(path)}) for index {index} in size {size}")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn & 1 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"inclusion proof has too few hashes ({len(path)}) for index {index} in size {size}")
    if r != want:
        raise ProofError(f"inclusion proof for index {index} in size {size} does not lead to the root")


def verify_consistency(m: int, n: int, proof: Sequence[bytes], root_m: bytes, root_n: bytes) -> None:
    """Return if `proof` proves the tree of size `m` with `root_m` is a prefix of the tree of size `n` with `root_n`.

    The algorithm is RFC 9162 section 2.1.4.2 for 0 < m < n. For m == n the proof must be empty and the
    roots equal; for m == 0 the proof must be empty and root_m must be the empty tree's root. Anything
    else (m > n, a hash too many or too few, a wrong order, the wrong roots) is refused with ProofError.
    """
    m = _size_arg(m, "m")
    n = _size_arg(n, "n")
    path = _proof_arg(proof)
    old = _hash_arg(root_m, "root_m")
    new = _hash_arg(root_n, "root_n")
    if m > n:
        raise ProofError(f"m ({m}) exceeds n ({n}): a tree is consistent only with a larger one")
    if m == n:
        if path:
            raise ProofError(f"a consistency proof between equal sizes ({m}) is empty, not {len(path)} hashes")
        if old != new:
            raise ProofError(f"two trees of size {m} with different roots are not consistent")
        return
    if m == 0:
        if path:
            raise ProofError(f"a consistency proof from the empty tree is empty, not {len(path)} hashes")
        if old != EMPTY_ROOT:
            raise ProofError("root_m is not the empty tree's root, yet m is 0")
        return
    if not path:
        raise ProofError(f"a consistency proof from {m} to {n} cannot be empty")
    if m & (m - 1) == 0:
        path = [old, *path]
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError(f"consistency proof from {m} to {n} has too many hashes ({len(proof)})")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while fn & 1 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"consistency proof from {m} to {n} has too few hashes ({len(proof)})")
    if fr != old:
        raise ProofError(f"consistency proof from {m} to {n} does not lead to root_m")
    if sr != new:
        raise ProofError(f"consistency proof from {m} to {n} does not lead to root_n")


# Keys


def is_valid_key_name(name: object) -> bool:
    """A note key name: a non-empty string of Unicode scalar values with no whitespace (as Go's
    unicode.IsSpace), no control character and no '+'."""
    if not isinstance(name, str) or not name or "+" in name:
        return False
    return not any(ch in _GO_SPACE or ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF for ch in name)


def key_hash(name: str, public_key: bytes) -> int:
    """The note key hash: the first 4 bytes, big-endian, of SHA-256(name || "\\n" || 0x01 || public_key)."""
    digest = hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([ALG_ED25519]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


def _b64decode(text: str, what: str, error: type[VerificationError]) -> bytes:
    """Standard padded base64 in its one canonical spelling (unused low bits zero), decoded.

    Go's decoder also takes non-zero unused bits; refusing them means a note has exactly one text.
    """
    if not _BASE64.fullmatch(text):
        raise error(f"{what} is not standard padded base64")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise error(f"{what} is not standard padded base64") from exc
    if base64.b64encode(raw).decode("ascii") != text:
        raise error(f"{what} is not canonical base64 (its unused low bits are not zero)")
    return raw


@dataclass(frozen=True)
class VerifierKey:
    """An Ed25519 note verifier key: its name, its 32-bit key hash and the 32-byte public key."""

    name: str
    key_hash: int
    public_key: bytes

    def text(self) -> str:
        """The verifier key text: "<name>+<8 hex digits of key hash>+<base64(0x01 || public key)>"."""
        encoded = base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode("ascii")
        return f"{self.name}+{self.key_hash:08x}+{encoded}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        """True if `signature` is this key's Ed25519 signature over `message`."""
        if len(signature) != 64:
            return False
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


def parse_verifier_key(text: str) -> VerifierKey:
    """Parse a verifier key text "<name>+<8 hex>+<base64(0x01 || 32-byte Ed25519 public key)>".

    Refuses with CheckpointError an invalid name, a hash that is not 8 hex digits or does not match the
    name and key, an algorithm other than Ed25519, or a key of the wrong length.
    """
    if not isinstance(text, str):
        raise CheckpointError(f"a verifier key is text, not {type(text).__name__}")
    parts = text.split("+", 2)
    if len(parts) != 3:
        raise CheckpointError("a verifier key is <name>+<key hash>+<key>")
    name, hash16, key64 = parts
    if not is_valid_key_name(name):
        raise CheckpointError("verifier key name is empty or has whitespace, a control character or '+'")
    if not _HEX8.fullmatch(hash16):
        raise CheckpointError("verifier key hash is not 8 hex digits")
    key = _b64decode(key64, "verifier key", CheckpointError)
    if len(key) != 1 + 32 or key[0] != ALG_ED25519:
        raise CheckpointError("verifier key is not an Ed25519 key (0x01 followed by 32 bytes)")
    public_key = key[1:]
    if int(hash16, 16) != key_hash(name, public_key):
        raise CheckpointError("verifier key hash does not match its name and key")
    try:
        Ed25519PublicKey.from_public_bytes(public_key)
    except ValueError as exc:
        raise CheckpointError("verifier key is not a valid Ed25519 public key") from exc
    return VerifierKey(name=name, key_hash=int(hash16, 16), public_key=public_key)


# Checkpoints and signed notes


@dataclass(frozen=True)
class Checkpoint:
    """An opened checkpoint: the log's origin, tree size, root hash (32 bytes), time (epoch ms) and signed body."""

    origin: str
    size: int
    root: bytes
    time_ms: int
    body: str


def _decimal(text: str, what: str) -> int:
    if not _DECIMAL.fullmatch(text):
        raise CheckpointError(f"checkpoint {what} is not a decimal number without leading zeros")
    value = int(text)
    if value > MAX_DECIMAL:
        raise CheckpointError(f"checkpoint {what} exceeds 2^63-1")
    return value


def _check_note_characters(text: str, what: str) -> None:
    for ch in text:
        code = ord(ch)
        if code < 0x20 and ch != "\n":
            raise CheckpointError(f"{what} has a control character (U+{code:04X})")
        if 0xD800 <= code <= 0xDFFF:
            raise CheckpointError(f"{what} is not valid UTF-8")


def parse_checkpoint_body(body: str) -> Checkpoint:
    """Parse checkpoint text "<origin>\\n<size>\\n<base64 root>\\ntime <ms>\\n" (further extension lines ignored).

    The origin must be non-empty; size and time are decimal without leading zeros, at most 2^63-1; the
    root is canonical padded base64 of 32 bytes; extension lines after the time line must be non-empty.
    This does not check any signature: see open_checkpoint.
    """
    if not isinstance(body, str):
        raise CheckpointError(f"checkpoint text is text, not {type(body).__name__}")
    _check_note_characters(body, "checkpoint text")
    if not body.endswith("\n"):
        raise CheckpointError("checkpoint text does not end with a newline")
    lines = body[:-1].split("\n")
    if len(lines) < 4:
        raise CheckpointError("checkpoint text has fewer than 4 lines (origin, size, root, time)")
    origin, size_text, root_text, time_line, *extensions = lines
    if not origin:
        raise CheckpointError("checkpoint origin line is empty")
    size = _decimal(size_text, "tree size")
    root = _b64decode(root_text, "checkpoint root hash", CheckpointError)
    if len(root) != HASH_SIZE:
        raise CheckpointError(f"checkpoint root hash is {len(root)} bytes, not {HASH_SIZE}")
    if not time_line.startswith("time "):
        raise CheckpointError("checkpoint's fourth line is not 'time <epoch milliseconds>'")
    time_ms = _decimal(time_line[len("time "):], "time")
    if any(not line for line in extensions):
        raise CheckpointError("checkpoint has an empty extension line")
    return Checkpoint(origin=origin, size=size, root=root, time_ms=time_ms, body=body)


def open_checkpoint(note_text: str | bytes, verifier_key_text: str | VerifierKey) -> Checkpoint:
    """Open a signed note holding a checkpoint, as Go's note.Open would with this one verifier key.

    The note is valid UTF-8 without control characters other than newline; its text runs to the last
    blank line; each following line is "— <name> <base64(4-byte key hash || signature)>". Signatures by
    other keys are skipped, but must be well-formed. Every signature line whose name and key hash match
    the verifier key must verify over the text, and at least one must: otherwise, or if the text is not
    a checkpoint (parse_checkpoint_body), the note is refused with CheckpointError.
    """
    key = verifier_key_text if isinstance(verifier_key_text, VerifierKey) else parse_verifier_key(verifier_key_text)
    if isinstance(note_text, bytes | bytearray):
        try:
            note_text = bytes(note_text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CheckpointError("signed note is not valid UTF-8") from exc
    if not isinstance(note_text, str):
        raise CheckpointError(f"a signed note is text, not {type(note_text).__name__}")
    _check_note_characters(note_text, "signed note")
    split = note_text.rfind("\n\n")
    if split < 0:
        raise CheckpointError("signed note has no blank line before its signatures")
    body, block = note_text[: split + 1], note_text[split + 2 :]
    if not block or not block.endswith("\n"):
        raise CheckpointError("signed note's signature block is empty or does not end with a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise CheckpointError(f"signed note has more than {MAX_SIGNATURES} signatures")
    message = body.encode("utf-8")
    verified = 0
    others: list[str] = []
    for line in lines:
        if not line.startswith(_SIG_PREFIX):
            raise CheckpointError("signed note has a signature line that does not start with '— '")
        name, _, encoded = line[len(_SIG_PREFIX) :].partition(" ")
        if not is_valid_key_name(name) or not encoded:
            raise CheckpointError("signed note has a malformed signature line")
        raw = _b64decode(encoded, "signature", CheckpointError)
        if len(raw) < 5:
            raise CheckpointError("signed note has a signature too short to hold a key hash and signature")
        line_hash = int.from_bytes(raw[:4], "big")
        if name != key.name or line_hash != key.key_hash:
            others.append(f"{name}+{line_hash:08x}")
            continue
        if not key.verify(message, raw[4:]):
            raise CheckpointError(f"signature by {key.name}+{key.key_hash:08x} does not verify over the note text")
        verified += 1
    if not verified:
        signers = ", ".join(others)
        raise CheckpointError(f"signed note has no signature by {key.name}+{key.key_hash:08x} (signed by {signers})")
    return parse_checkpoint_body(body)
