// The recorded decision snapshots among $ids, by the index on Snapshot.id: what a question's planner asks
// of a snapshot a declaration or a preference names (graph_service.from_graph.knowledge.read_named).
MATCH (s:Snapshot)
WHERE s.id IN $ids
RETURN s.id AS id, properties(s) AS snapshot
