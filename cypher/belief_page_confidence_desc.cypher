// A page of beliefs, most confident first, after the keyset cursor ($after_key, $after_id), among those whose
// key lies in the window [$from_key, $to_key). The key is the confidence in units of 1e-9 (the
// fingerprint's precision), a whole number both backends compare exactly; beliefs with the same key
// are ordered by id. The window is read by the index on Belief.confidence (a range one key wider on
// each side, then cut on the key), so a page sorts the beliefs in its window, not every belief:
// graph_service.api.read_pages.belief_page_now widens the window until the page is full.
MATCH (b:Belief)
WHERE b.confidence >= ($from_key - 1) / 1000000000.0 AND b.confidence < ($to_key + 1) / 1000000000.0
  AND ($status IS NULL OR b.status = $status)
  AND ($subject IS NULL OR b.subject = $subject)
  AND ($kind IS NULL OR b.epistemic_kind = $kind)
WITH b, round(b.confidence * 1000000000.0) AS key
WHERE key >= $from_key AND key < $to_key
  AND ($after_id IS NULL OR key < $after_key OR (key = $after_key AND b.id > $after_id))
RETURN properties(b) AS belief, key
ORDER BY key DESC, b.id ASC
LIMIT $limit
