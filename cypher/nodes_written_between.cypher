// Every node the entries after position $from up to $to wrote, each once with the first of those
// entries: an indexed range over the entries' positions, so it costs the entries in the range. A Unit
// and a Due (the knowledge evaluation's schedule and expiry queue, kept for writes:
// graph_service.state.StoreState._kept_for_writes) are the service's bookkeeping, not what the store
// knows, and are left out.
MATCH (e:Entry)-[:WROTE]->(n)
WHERE e.seq > $from AND e.seq <= $to AND NOT n:Unit AND NOT n:Due
WITH n, min(e.seq) AS first
RETURN labels(n)[0] AS label, n.id AS id, first
ORDER BY first, id
