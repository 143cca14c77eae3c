// The recorded snapshots that read each of the items $ids (as a fact or a hint: their READ edges), one row
// a pair: a target's materiality counts the decisions taken on what it stands on.
UNWIND $ids AS item_id
MATCH (s:Snapshot)-[:READ]->(:Item {id: item_id})
RETURN DISTINCT item_id AS item, s.id AS id
