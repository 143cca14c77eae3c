// The (time, item) pairs pending in the expiry queue as of position $upto whose time is after $after and
// at or before $until: what a tick moving the clock from $after to $until takes
// (graph_service.knowledge.expiry), by the range index on the Due nodes' time, in order.
MATCH (q:Due)
WHERE q.expires > $after AND q.expires <= $until
  AND q.queued_at <= $upto AND (q.taken_at IS NULL OR q.taken_at > $upto)
RETURN q.expires AS expires, q.item AS item
ORDER BY expires, item
