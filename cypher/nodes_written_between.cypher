// Every node the entries after position $from up to $to wrote, each once with the first of those
// entries: an indexed range over the entries' positions, so it costs the entries in the range. A Unit,
// a Due and the Fingerprint (the knowledge evaluation's schedule, expiry queue and running fingerprint,
// kept for writes: graph_service.state.StoreState._kept_for_writes) are the service's bookkeeping, not
// what the store knows, and are left out.
MATCH (e:Entry)-[:WROTE]->(n)
WHERE e.seq > $from AND e.seq <= $to AND NOT n:Unit AND NOT n:Due AND NOT n:Fingerprint
WITH n, min(e.seq) AS first
RETURN labels(n)[0] AS label, n.id AS id, first
ORDER BY first, id
