// One window of a page of beliefs, most confident first: the beliefs ranked $low to $high (a range of
// the rank index: the confidence in units of 1e-9, written with the belief), after the keyset cursor
// ($after_key, $after_id), at most $limit. The caller walks windows downwards until the page is full,
// so a page sorts what its windows hold, never every belief. Ties are ordered by id.
MATCH (b:Belief)
WHERE b.rank >= $low AND b.rank <= $high
  AND ($status IS NULL OR b.status = $status)
  AND ($subject IS NULL OR b.subject = $subject)
  AND ($kind IS NULL OR b.epistemic_kind = $kind)
  AND ($after_id IS NULL OR b.rank < $after_key OR (b.rank = $after_key AND b.id > $after_id))
RETURN properties(b) AS belief, b.rank AS key
ORDER BY key DESC, b.id ASC
LIMIT $limit
