// Every node the entries after position $from up to $to wrote, each once with the first of those
// entries: an indexed range over the entries' positions, so it costs the entries in the range. A Unit,
// a Due, the Fingerprint (the knowledge evaluation's schedule, expiry queue and running fingerprint,
// kept for writes: graph_service.state.StoreState._kept_for_writes) and a Tally (how many live rows of a
// belief hold a value: beliefs.projecting) are the service's bookkeeping, not what the store knows, and
// are left out once the range is walked: left out in the range's own WHERE, the fourth of them made the
// embedded FalkorDB plan a scan of every node.
MATCH (e:Entry)-[:WROTE]->(n)
WHERE e.seq > $from AND e.seq <= $to
WITH e, n
WHERE NOT n:Unit AND NOT n:Due AND NOT n:Fingerprint AND NOT n:Tally
WITH n, min(e.seq) AS first
RETURN labels(n)[0] AS label, n.id AS id, first
ORDER BY first, id
