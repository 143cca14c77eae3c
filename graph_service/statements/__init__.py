"""Statements (SPEC 3.5): a deterministic interpreter that turns what someone said into
assertions (and, for factual ones, evidence specs), and the journal domain for `statement.say`.
Pure: standard library only, no I/O."""

from graph_service.statements.assertion import AssertionDraft, EvidenceSpec
from graph_service.statements.interpret import actor_id, interpret, is_conversational
from graph_service.statements.state import (
    OP_SAY,
    StatementState,
    assertion_id,
    assertion_props,
    message_observation_id,
)

__all__ = [
    "OP_SAY",
    "AssertionDraft",
    "EvidenceSpec",
    "StatementState",
    "actor_id",
    "assertion_id",
    "assertion_props",
    "interpret",
    "is_conversational",
    "message_observation_id",
]
