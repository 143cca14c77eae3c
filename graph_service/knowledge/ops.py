"""The journal operations of the knowledge store, and which item an entry is about."""

from __future__ import annotations

from graph_service.journal.chain import Entry
from graph_service.journal.clock import TICK

ADD = "item.add"
REFUSED = "item.refused"
PROMOTE = "item.promote"
RETRACT = "item.retract"
ROLLBACK = "item.rollback"
RETIRE = "item.retire"
RECONFIRM = "item.reconfirm"
USED = "item.used"
FLAG = "flag.raise"
END_FLAG = "flag.end"
RESOLVE = "dispute.resolve"
SNAPSHOT = "snapshot.take"

KNOWLEDGE_OPS: tuple[str, ...] = (
    ADD,
    REFUSED,
    PROMOTE,
    RETRACT,
    ROLLBACK,
    RETIRE,
    RECONFIRM,
    USED,
    FLAG,
    END_FLAG,
    RESOLVE,
    TICK,
    SNAPSHOT,
)

# Entries that are an item's own: left out when the store is rebuilt as if that item had never been written.
_OWN_ENTRY_OPS = frozenset({ADD, REFUSED, PROMOTE, RETRACT, ROLLBACK, RETIRE, RECONFIRM})


def subject_of(entry: Entry) -> str | None:
    """The item an entry is the item's own entry about, or None for entries about several or none."""
    if entry.op in _OWN_ENTRY_OPS:
        subject = entry.payload.get("id")
        return subject if isinstance(subject, str) else None
    return None
