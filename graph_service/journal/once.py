"""Write-once keys: what the journal keeps of an Idempotency-Key (IETF httpapi draft) with its entry.

The key is stored on the Entry node it wrote, outside the entry's hash, by the same atomic append:
it is as durable as the entry (a restart or a kill -9 keeps it). A writer looks the key up after
reading the head and appends with a compare-and-set on that head, so no entry (with the key or not)
can land between its look-up and its append: two writers racing with one key write once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from graph_service.errors import AlreadyWritten, KeyReused


@dataclass
class WriteOnce:
    """One request's key: `key` digests (principal, key), `request` digests what was asked.

    `written` is the position the request wrote, once it has; a key covers one write."""

    key: str
    request: str
    written: int | None = None

    @classmethod
    def of(cls, principal: str, key: str, request: str) -> WriteOnce:
        """Digests only: neither the principal nor the client's key text is stored."""
        return cls(key=_digest(principal, key), request=_digest(request))

    def check_stored(self, stored: dict[str, object] | None) -> None:
        """Nothing to do when the key is new; else KeyReused (another request) or AlreadyWritten."""
        if stored is None:
            return
        seq = int(stored["seq"])  # type: ignore[call-overload]
        if stored.get("request") != self.request:
            raise KeyReused(f"this Idempotency-Key was first sent with a different request (written as journal "
                            f"entry {seq}); a key names one request", field="Idempotency-Key")
        raise AlreadyWritten(f"this Idempotency-Key's request was already written as journal entry {seq}; it is "
                             "not written again (its first answer is not kept yet: if that request is still "
                             "in flight, retry shortly)", seq=seq)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()
