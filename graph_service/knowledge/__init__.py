"""The knowledge store's pure core: items, gates, state rules, replay, snapshots and fingerprints.

A write is planned (`planning.plan_*` → a `Draft`, or a UserError and nothing written), appended
to the journal as one entry, and applied (`KnowledgeState.apply(entry)` → the graph changes and
the writer's result). `rebuild` replays a journal purely; its fingerprint equals the store's.
"""

from graph_service.knowledge.fingerprint import ITEM_FINGERPRINT_FIELDS, fingerprint_of
from graph_service.knowledge.gates import ConsistencyGate, Gate, ShadowGate, SourceGate, Verdict
from graph_service.knowledge.items import (
    KINDS,
    RANKS,
    RECONFIRM_DEFAULTS,
    SOURCES,
    STATUSES,
    content_id,
    key_of,
)
from graph_service.knowledge.ops import KNOWLEDGE_OPS
from graph_service.knowledge.replay import rebuild, redecide
from graph_service.knowledge.state import KnowledgeState

__all__ = [
    "ITEM_FINGERPRINT_FIELDS",
    "KINDS",
    "KNOWLEDGE_OPS",
    "RANKS",
    "RECONFIRM_DEFAULTS",
    "SOURCES",
    "STATUSES",
    "ConsistencyGate",
    "Gate",
    "KnowledgeState",
    "ShadowGate",
    "SourceGate",
    "Verdict",
    "content_id",
    "fingerprint_of",
    "key_of",
    "rebuild",
    "redecide",
]
