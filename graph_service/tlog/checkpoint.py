"""The signing side of checkpoints, pure apart from the key file: checkpoint text, signed notes, Ed25519 keys.

Formats (docs/log-format.md) are those of C2SP tlog-checkpoint and signed-note as Go's
golang.org/x/mod/sumdb/note implements them; graph_service.tlog.verifier opens what this module signs.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import re
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from graph_service.tlog.verifier import (
    ALG_ED25519,
    HASH_SIZE,
    MAX_DECIMAL,
    VerifierKey,
    is_valid_key_name,
    key_hash,
)

_HEX8 = re.compile(r"[0-9a-fA-F]{8}", re.ASCII)


class SignerKeyError(ValueError):
    """A signer key text or key file that cannot be used; the message never contains key material."""


class Signer:
    """An Ed25519 note signer: a key name and a private key. Its repr shows the name and key hash only."""

    def __init__(self, name: str, private_key: Ed25519PrivateKey) -> None:
        """A signer named `name` (a valid note key name) for `private_key`."""
        if not is_valid_key_name(name):
            raise SignerKeyError(f"{name!r} is not a key name: non-empty, no whitespace, control character or '+'")
        if not isinstance(private_key, Ed25519PrivateKey):
            raise SignerKeyError(f"a signer needs an Ed25519 private key, not {type(private_key).__name__}")
        self.name = name
        self._private_key = private_key
        self.public_key = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.key_hash = key_hash(name, self.public_key)

    @classmethod
    def generate(cls, name: str) -> Signer:
        """A signer with a fresh random key."""
        return cls(name, Ed25519PrivateKey.generate())

    def verifier(self) -> VerifierKey:
        """This signer's public half, as the verifier parses it."""
        return VerifierKey(name=self.name, key_hash=self.key_hash, public_key=self.public_key)

    def verifier_key(self) -> str:
        """The verifier key text "<name>+<8 hex>+<base64(0x01 || public key)>", to publish."""
        return self.verifier().text()

    def private_key_text(self) -> str:
        """The signer key text "PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 || 32-byte seed)>": a secret."""
        seed = self._private_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        encoded = base64.b64encode(bytes([ALG_ED25519]) + seed).decode("ascii")
        return f"PRIVATE+KEY+{self.name}+{self.key_hash:08x}+{encoded}"

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature over `message`."""
        return self._private_key.sign(message)

    def __repr__(self) -> str:
        return f"Signer(name={self.name!r}, key_hash={self.key_hash:08x})"


def signer_from_text(text: str) -> Signer:
    """Parse a signer key text "PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 || 32-byte seed)>", as Go's note.NewSigner.

    Raises SignerKeyError if it is malformed, not Ed25519, or its key hash does not match the name and
    the public key derived from the seed.
    """
    if not isinstance(text, str):
        raise SignerKeyError(f"a signer key is text, not {type(text).__name__}")
    parts = text.split("+", 4)
    if len(parts) != 5 or parts[0] != "PRIVATE" or parts[1] != "KEY":
        raise SignerKeyError("a signer key is PRIVATE+KEY+<name>+<key hash>+<key>")
    _, _, name, hash16, key64 = parts
    if not is_valid_key_name(name):
        raise SignerKeyError("signer key name is empty or has whitespace, a control character or '+'")
    if not _HEX8.fullmatch(hash16):
        raise SignerKeyError("signer key hash is not 8 hex digits")
    try:
        key = base64.b64decode(key64, validate=True)
    except (binascii.Error, ValueError):
        raise SignerKeyError("signer key is not base64") from None
    if len(key) != 1 + 32 or key[0] != ALG_ED25519:
        raise SignerKeyError("signer key is not an Ed25519 key (0x01 followed by a 32-byte seed)")
    signer = Signer(name, Ed25519PrivateKey.from_private_bytes(key[1:]))
    if signer.key_hash != int(hash16, 16):
        raise SignerKeyError("signer key hash does not match its name and the key's public half")
    return signer


def load_or_create_signer(path: Path, name: str) -> Signer:
    """The signer whose key text is in the file at `path`, creating it with a new key (mode 0600) if absent.

    A file that exists but does not hold a signer key text, or holds one for a name other than `name`,
    raises SignerKeyError naming the file; it is never overwritten. Creation is atomic: the key is written
    to a temporary file beside `path` and linked into place, so a crash or a concurrent creator never
    leaves a partial key and both creators end up with the same key.
    """
    path = Path(path)
    if not path.exists():
        candidate = Signer.generate(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file with mode 0600, before any key byte is in it.
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "w", encoding="ascii") as handle:
                handle.write(candidate.private_key_text() + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            os.unlink(temporary)
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise SignerKeyError(f"cannot read the signer key file {path}: {exc.__class__.__name__}") from None
    try:
        signer = signer_from_text(text.strip())
    except SignerKeyError as exc:
        raise SignerKeyError(f"the signer key file {path} does not hold a signer key: {exc}") from None
    if signer.name != name:
        raise SignerKeyError(f"the signer key file {path} holds the key {signer.name!r}, not {name!r}")
    return signer


def _check_decimal(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_DECIMAL:
        raise ValueError(f"{what} must be an integer from 0 to 2^63-1, got {value!r}")
    return value


def checkpoint_text(origin: str, size: int, root: bytes, time_ms: int) -> str:
    """The checkpoint body "<origin>\\n<size>\\n<base64 root>\\ntime <time_ms>\\n" that a note signs.

    Raises ValueError for an empty origin or one with a newline, control character or invalid Unicode,
    a size or time outside 0..2^63-1, or a root that is not 32 bytes: what the verifier would refuse.
    """
    if not isinstance(origin, str) or not origin:
        raise ValueError("origin must be a non-empty string")
    if any(ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF for ch in origin):
        raise ValueError("origin must not contain a newline, control character or lone surrogate")
    _check_decimal(size, "size")
    _check_decimal(time_ms, "time_ms")
    if not isinstance(root, bytes | bytearray) or len(root) != HASH_SIZE:
        raise ValueError(f"root must be {HASH_SIZE} bytes")
    encoded = base64.b64encode(bytes(root)).decode("ascii")
    return f"{origin}\n{size}\n{encoded}\ntime {time_ms}\n"


def sign_note(signer: Signer, text: str) -> str:
    """The signed note: `text` (ending in a newline), a blank line, and the line "— <name> <base64(hash || sig)>"."""
    if not text.endswith("\n"):
        raise ValueError("note text must end with a newline")
    signature = signer.key_hash.to_bytes(4, "big") + signer.sign(text.encode("utf-8"))
    return f"{text}\n\u2014 {signer.name} {base64.b64encode(signature).decode('ascii')}\n"


def sign_checkpoint(signer: Signer, origin: str, size: int, root: bytes, time_ms: int) -> str:
    """The signed note of checkpoint_text(origin, size, root, time_ms), signed by `signer`."""
    return sign_note(signer, checkpoint_text(origin, size, root, time_ms))
