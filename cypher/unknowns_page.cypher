// A page of the declared unknowns in the order declared, among those declared at a position in the window
// [$from_key, $to_key), only the answered ($answered true) or open (false) ones unless $answered is null: at
// most $limit, each node's stored properties with the items and decision snapshots it affects (its AFFECTS
// edges; graph_service.questions.as_of.unknown_record reads them). An unknown's place is the position it was
// declared at (an entry declares one). The window is read by the index on Unknown.declared_at, so a page sorts
// the unknowns in its window (graph_service.key_windows.rows_by_place widens it until the page is full).
MATCH (u:Unknown)
WHERE u.declared_at >= $from_key AND u.declared_at < $to_key
  AND ($answered IS NULL OR (u.status = 'answered') = $answered)
WITH u
ORDER BY u.declared_at
LIMIT $limit
OPTIONAL MATCH (u)-[:AFFECTS]->(t)
WITH u, collect(CASE WHEN 'Item' IN labels(t) THEN t.id END) AS items,
     collect(CASE WHEN 'Snapshot' IN labels(t) THEN t.id END) AS decisions
RETURN properties(u) AS unknown, items, decisions
ORDER BY u.declared_at
