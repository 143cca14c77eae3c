// A page of the open disputes, oldest first (then by key), among those opened at a position in the window
// [$from_key, $to_key): at most $limit, each node's stored properties (graph_service.knowledge.records.
// dispute_props). A dispute's place is the position it opened at, so a cursor names the same place on every
// later read. The window is read by the index on Dispute.opened_at, so a page sorts the disputes in its
// window, not every open one (graph_service.api.read_pages widens the window until the page is full); the
// open flag is compared through an alias, else FalkorDB reads the index on Dispute.open instead.
MATCH (d:Dispute)
WHERE d.opened_at >= $from_key AND d.opened_at < $to_key
WITH d, d.open AS open
WHERE open = true
RETURN properties(d) AS dispute
ORDER BY d.opened_at, d.key
LIMIT $limit
