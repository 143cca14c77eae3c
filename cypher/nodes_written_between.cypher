// Every node the entries after position $from up to $to wrote, each once with the first of those
// entries: an indexed range over the entries' positions, so it costs the entries in the range. A Unit
// (the knowledge evaluation's schedule, kept for writes: graph_service.state.StoreState._scheduled) is
// the service's bookkeeping, not what the store knows, and is left out.
MATCH (e:Entry)-[:WROTE]->(n)
WHERE e.seq > $from AND e.seq <= $to AND NOT n:Unit
WITH n, min(e.seq) AS first
RETURN labels(n)[0] AS label, n.id AS id, first
ORDER BY first, id
