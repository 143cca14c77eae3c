// A page of beliefs, most confident first (ties by id), after the keyset cursor ($after_confidence, $after_id).
MATCH (b:Belief)
WHERE ($status IS NULL OR b.status = $status)
  AND ($subject IS NULL OR b.subject = $subject)
  AND ($kind IS NULL OR b.epistemic_kind = $kind)
  AND ($after_id IS NULL OR b.confidence < $after_confidence
       OR (b.confidence = $after_confidence AND b.id > $after_id))
RETURN properties(b) AS belief
ORDER BY b.confidence DESC, b.id ASC
LIMIT $limit
