// Append one journal entry if the head is still where the writer read it (compare-and-set), and,
// for a keyed write ($idem, an Idempotency-Key's digest), if no entry holds that key yet.
// Writing a constant takes the head's write lock first (Neo4j), so the checks read the latest state.
// Not `SET h.hash = h.hash`: its right side is read before the lock, so under contention it wrote a
// stale hash back and broke the chain (found on Neo4j 5.26). FalkorDB runs the statement atomically. Zero rows returned: the writer lost the race.
MATCH (h:Head {id: 'journal'})
SET h.lock = true
REMOVE h.lock
WITH h
OPTIONAL MATCH (k:Entry)
  WHERE k.idem = $idem
WITH h, count(k) AS taken
WHERE h.hash = $prev AND h.seq = $seq - 1 AND taken = 0
CREATE (e:Entry)
SET e = $entry
SET h.hash = $entry.hash, h.seq = $seq
WITH e
OPTIONAL MATCH (p:Entry {seq: $seq - 1})
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (e)-[:PREV]->(x))
RETURN e.seq AS seq
