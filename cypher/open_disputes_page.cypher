// A page of the open disputes, oldest first (then by key), opened after position $after: at most $limit,
// each node's stored properties (graph_service.knowledge.records.dispute_props). A dispute's place is the
// position it opened at, so a cursor names the same place on every later read. The range is read by the
// index on Dispute.opened_at.
MATCH (d:Dispute)
WHERE d.opened_at > $after AND d.open = true
RETURN properties(d) AS dispute
ORDER BY d.opened_at, d.key
LIMIT $limit
