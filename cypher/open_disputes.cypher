// Every open dispute, oldest first (then by key): each node's stored properties
// (graph_service.knowledge.records.dispute_props), read by the index on Dispute.open. What the open
// questions rank: their count is what is open, not what the store holds.
MATCH (d:Dispute)
WHERE d.open = true
RETURN properties(d) AS dispute
ORDER BY d.opened_at, d.key
