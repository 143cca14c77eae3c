// What every unknown declared by position $upto affects: the items and decision snapshots it bears on
// ((:Unknown)-[:AFFECTS]->), each edge with the position that first wrote it (the caller keeps those up
// to $upto).
MATCH (u:Unknown)-[r:AFFECTS]->(t:Item)
WHERE u.declared_at <= $upto
RETURN u.id AS unknown, 'Item' AS label, t.id AS target, r.since_seq AS since
UNION ALL
MATCH (u:Unknown)-[r:AFFECTS]->(t:Snapshot)
WHERE u.declared_at <= $upto
RETURN u.id AS unknown, 'Snapshot' AS label, t.id AS target, r.since_seq AS since
