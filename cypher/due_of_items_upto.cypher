// The store-clock times the items $ids were queued at, pending as of position $upto (queued by then and
// not yet taken by a tick: graph_service.knowledge.expiry), by the index on the Due nodes' item.
UNWIND $ids AS iid
MATCH (q:Due {item: iid})
WHERE q.queued_at <= $upto AND (q.taken_at IS NULL OR q.taken_at > $upto)
RETURN q.item AS item, q.expires AS expires
