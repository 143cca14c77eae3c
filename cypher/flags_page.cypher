// A page of the flags in the order raised, among those raised at a position in the window [$from_key,
// $to_key), only the pending ($pending true) or ended (false) ones unless $pending is null: at most $limit, each
// node's stored properties (graph_service.knowledge.records.FlagRecord.props) with the ids of the items it
// covers. A flag's place is the position it was raised at, so a cursor names the same place on every later
// read. The window is read by the index on Flag.raised_at, so a page sorts the flags in its window
// (graph_service.key_windows.rows_by_place widens it until the page is full); the covered items by the flag's
// own COVERS edges.
MATCH (f:Flag)
WHERE f.raised_at >= $from_key AND f.raised_at < $to_key AND ($pending IS NULL OR f.pending = $pending)
WITH f
ORDER BY f.raised_at
LIMIT $limit
OPTIONAL MATCH (f)-[:COVERS]->(i:Item)
WITH f, collect(i.id) AS covers
RETURN properties(f) AS flag, covers
ORDER BY f.raised_at
