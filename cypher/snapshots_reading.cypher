// The ids of the recorded snapshots that read any of the items $ids (as a fact or a hint: their READ
// edges): a target's materiality counts the decisions taken on what it stands on.
UNWIND $ids AS item_id
MATCH (s:Snapshot)-[:READ]->(:Item {id: item_id})
RETURN DISTINCT s.id AS id
