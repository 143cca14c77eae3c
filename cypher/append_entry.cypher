// Append one journal entry if the head is still where the writer read it (compare-and-set).
// Writing a constant takes the head's write lock first (Neo4j), so the check reads the latest head.
// Not `SET h.hash = h.hash`: its right side is read before the lock, so under contention it wrote a
// stale hash back and broke the chain (found on Neo4j 5.26). FalkorDB runs the statement atomically. Zero rows returned: the writer lost the race.
MATCH (h:Head {id: 'journal'})
SET h.lock = true
REMOVE h.lock
WITH h
WHERE h.hash = $prev AND h.seq = $seq - 1
CREATE (e:Entry)
SET e = $entry
SET h.hash = $entry.hash, h.seq = $seq
WITH e
OPTIONAL MATCH (p:Entry {seq: $seq - 1})
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (e)-[:PREV]->(x))
RETURN e.seq AS seq
