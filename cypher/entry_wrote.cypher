// What one journal entry wrote: the nodes its projection created or changed (at most $limit).
MATCH (e:Entry {seq: $seq})-[:WROTE]->(n)
RETURN labels(n)[0] AS label, n.id AS id
ORDER BY label, id
LIMIT $limit
