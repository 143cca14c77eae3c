"""What a payload must be to be stored as it is, and an entry read back from its stored row."""

from __future__ import annotations

import json
from typing import Any

from graph_service.errors import UserError
from graph_service.journal.chain import Entry, canonical_json

# RFC 8785 writes numbers as IEEE-754 doubles (I-JSON, RFC 7493): beyond 2^53 an integer would hash
# as a different number in every other language's verifier, so it is refused.
JSON_SAFE_INT = (-(2**53 - 1), 2**53 - 1)


def _unstorable(value: Any, path: str) -> str | None:
    """Why a payload value cannot be stored and read back as it is, or None (depth-first)."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return None
    if isinstance(value, int):
        if JSON_SAFE_INT[0] <= value <= JSON_SAFE_INT[1]:
            return None
        return f"{path}: {value} is outside the integers JSON holds exactly (±(2^53 - 1), RFC 8785)"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{path}: the text holds an unpaired surrogate, which is not UTF-8"
        return None
    if isinstance(value, dict):
        children = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        children = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return f"{path}: {type(value).__name__} is not plain JSON"
    return next((why for p, v in children if (why := _unstorable(v, p))), None)


def storable_payload(payload: dict[str, Any], by: str) -> str:
    """The payload's canonical JSON, once every value is one both backends store as it is.

    UserError names the first value that is not: an integer beyond ±(2^53 - 1), text that is not
    UTF-8; and a NUL in `by`, which FalkorDB cuts a query at (JSON escapes it in the payload).
    """
    if "\x00" in by or _unstorable(by, "by"):
        raise UserError("by must be UTF-8 text without the NUL character (U+0000)", field="by")
    why = _unstorable(payload, "payload")
    if why:
        raise UserError(why, field=why.split(":")[0])
    return canonical_json(payload)


def entry_from_row(row: dict[str, Any]) -> Entry:
    """An Entry from its stored properties (the payload is stored as canonical JSON text).

    Trusts the row: for rows not yet checked, JournalAudit.feed is the reader that never fails."""
    return Entry(
        seq=row["seq"], op=row["op"], by=row["by"], at=row["at"],
        payload=json.loads(row["payload"]), prev=row["prev"], hash=row["hash"], tree=tuple(row.get("tree") or ()),
    )
