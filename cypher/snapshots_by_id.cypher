// The recorded decision snapshots among $ids, by the index on Snapshot.id: what a question's planner asks
// of a snapshot a declaration or a preference names (graph_service.knowledge_from_graph.read_named).
MATCH (s:Snapshot)
WHERE s.id IN $ids
RETURN s.id AS id, properties(s) AS snapshot
