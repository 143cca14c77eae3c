"""What an applied entry changes in the graph: belief nodes, versions, evidence, families and tallies."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import TYPE_CHECKING, Any

from graph_service.beliefs.change import Change
from graph_service.beliefs.confidence import EvidenceValue
from graph_service.beliefs.records import family_props
from graph_service.beliefs.vocabulary import ROOT_LABELS
from graph_service.journal.chain import canonical_json
from graph_service.projection import NodeUpsert, Projection

if TYPE_CHECKING:
    from graph_service.beliefs.state import BeliefState


def version_id(belief_id: str, version: int) -> str:
    return f"{belief_id}/v{version}"


def project(state: BeliefState, change: Change) -> Projection:
    """Nodes and edges for everything `change` touched (once each touched belief's version is counted)."""
    projection = Projection()
    for belief_id in change.touched:
        belief = state.beliefs[belief_id]
        projection.nodes.append(NodeUpsert("Belief", belief_id, belief.node_props()))
    new_rows = set(change.new_rows)
    for evidence_id in change.new_rows:
        row = state.rows[evidence_id]
        projection.nodes.append(NodeUpsert("Evidence", row.id, row.node_props()))
        projection.nodes.append(NodeUpsert("Family", row.family, family_props(row.family)))
        projection.edge("BEARS_ON", "Evidence", row.id, "Belief", row.belief, direction=row.direction)
        projection.edge("FROM", "Evidence", row.id, "Family", row.family)
        if row.actor is not None:
            projection.edge("REPRESENTS", "Family", row.family, "Actor", row.actor)
        label = ROOT_LABELS.get(row.root_kind or "")
        if label is not None:
            for root in row.root_ids:
                projection.edge("ROOTED_IN", "Evidence", row.id, label, root)
    for evidence_id in change.changed_rows:
        if evidence_id not in new_rows:
            row = state.rows[evidence_id]
            projection.nodes.append(NodeUpsert("Evidence", row.id, row.node_props()))
    for belief_id, reasons in change.touched.items():
        # The version this entry appends is the belief as it now stands (the history is the graph's).
        belief = state.beliefs[belief_id]
        vid = version_id(belief_id, belief.version)
        props = {
            "id": vid,
            "belief": belief_id,
            "version": belief.version,
            "confidence": belief.confidence,
            "status": belief.status,
            "breakdown": canonical_json(belief.breakdown.to_dict()),
            "seq": change.seq,
            "op": change.entry.op,
            "by": change.entry.by,
            "at": change.entry.at,
            "reason": "; ".join(reasons),
        }
        projection.nodes.append(NodeUpsert("BeliefVersion", vid, props))
        projection.edge("VERSION_OF", "BeliefVersion", vid, "Belief", belief_id)
    projection.edges.extend(change.edges)
    for belief_id, value in change.counted:
        node_id = tally_id(belief_id, value)
        rows = state._tallies[belief_id].counts.get(value, 0)
        projection.nodes.append(NodeUpsert("Tally", node_id, tally_props(value, rows)))
        projection.edge("TALLIES", "Tally", node_id, "Belief", belief_id)
    kept_for_writes(state, change, projection)
    return projection


def tally_value(value: EvidenceValue) -> str:
    """A value as a Tally node keeps it: canonical JSON, whose numbers read back exactly (FamilyTally takes away
    exactly the value it was given; FalkorDB returns a double property to 15 digits)."""
    return canonical_json(dataclasses.asdict(value))


def tally_id(belief_id: str, value: EvidenceValue) -> str:
    """The id of the node that counts a belief's live rows of one value."""
    return f"{belief_id}/t{hashlib.sha256(tally_value(value).encode()).hexdigest()[:16]}"


def tally_props(value: EvidenceValue, rows: int) -> dict[str, Any]:
    """A Tally node's properties: `rows`, how many live rows of its belief hold its value now (0: none any more)."""
    return {"rows": rows, "value": tally_value(value), "direction": value.direction, "family": value.family}


def kept_for_writes(state: BeliefState, change: Change, projection: Projection) -> None:
    """What the change made of the parts a write that holds no copy of the layer reads besides the records
    (beliefs.partial_write): each new belief's and pattern's tokens (HAS_TOKEN, the near-match indexes), each
    pattern, each root marked inaccurate, each subject's entity where a merge or split moved it."""
    for belief_id in change.created:
        _tokens(projection, "Belief", belief_id, state.beliefs[belief_id].signature.tokens)
    for pattern in change.patterns:
        projection.node("Pattern", pattern.id, proposition=pattern.proposition, seq=pattern.seq, by=pattern.by)
        _tokens(projection, "Pattern", pattern.id, pattern.signature.tokens)
    for root_kind, root_id in change.inaccurate:
        projection.node("InaccurateRoot", inaccurate_root_id(root_kind, root_id), root_kind=root_kind,
                        root_id=root_id, seq=change.seq)
    for subject, entity in change.entities.items():
        projection.node("Subject", subject, entity=entity)


def _tokens(projection: Projection, label: str, node_id: str, tokens: frozenset[str]) -> None:
    for token in sorted(tokens):
        projection.node("Token", token)
        projection.edge("HAS_TOKEN", label, node_id, "Token", token)


def inaccurate_root_id(root_kind: str, root_id: str) -> str:
    """The id of the node that says a root was marked inaccurate."""
    return f"{root_kind}:{root_id}"
