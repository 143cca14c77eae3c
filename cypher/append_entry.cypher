// Append one journal entry if the head is still where the writer read it (compare-and-set).
// The no-op SET takes the head's write lock first (Neo4j), so the check reads the latest head;
// FalkorDB runs the whole statement atomically. Zero rows returned: the writer lost the race.
MATCH (h:Head {id: 'journal'})
SET h.hash = h.hash
WITH h
WHERE h.hash = $prev AND h.seq = $seq - 1
CREATE (e:Entry)
SET e = $entry
SET h.hash = $entry.hash, h.seq = $seq
WITH e
OPTIONAL MATCH (p:Entry {seq: $seq - 1})
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (e)-[:PREV]->(x))
RETURN e.seq AS seq
