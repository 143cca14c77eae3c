// The id of every item learned by position $upto, in order: what a write that touches every item reads
// first (a flag over everything, a snapshot of everything: graph_service.from_graph.knowledge_region.PartsFromGraph).
MATCH (i:Item)
WHERE i.learned_at <= $upto
RETURN i.id AS id
ORDER BY id
