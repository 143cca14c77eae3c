// The ids of the items some pending flag covers, by the index on Flag.pending and each flag's COVERS
// edges: the items a flag made stale, which the open questions ask about.
MATCH (f:Flag)
WHERE f.pending = true
MATCH (f)-[:COVERS]->(i:Item)
RETURN DISTINCT i.id AS id
