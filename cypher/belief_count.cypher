// How many beliefs a filter selects.
MATCH (b:Belief)
WHERE ($status IS NULL OR b.status = $status)
  AND ($subject IS NULL OR b.subject = $subject)
  AND ($kind IS NULL OR b.epistemic_kind = $kind)
RETURN count(b) AS total
