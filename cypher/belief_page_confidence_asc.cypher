// A page of beliefs, least confident first, after the keyset cursor ($after_key, $after_id).
// The key is the confidence in units of 1e-9 (the fingerprint's precision), a whole number both
// backends compare exactly; beliefs with the same key are ordered by id.
MATCH (b:Belief)
WHERE ($status IS NULL OR b.status = $status)
  AND ($subject IS NULL OR b.subject = $subject)
  AND ($kind IS NULL OR b.epistemic_kind = $kind)
WITH b, round(b.confidence * 1000000000.0) AS key
WHERE $after_id IS NULL OR key > $after_key OR (key = $after_key AND b.id > $after_id)
RETURN properties(b) AS belief, key
ORDER BY key ASC, b.id ASC
LIMIT $limit
