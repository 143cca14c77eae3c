// Append consecutive journal entries $first..$last at once if the head is still where the loader
// read it (compare-and-set, as append_entry). Zero rows: another writer appended first.
MATCH (h:Head {id: 'journal'})
SET h.lock = true
REMOVE h.lock
WITH h
WHERE h.hash = $prev AND h.seq = $first - 1
SET h.hash = $last_hash, h.seq = $last
WITH h
UNWIND $entries AS x
CREATE (e:Entry)
SET e = x
WITH e
OPTIONAL MATCH (p:Entry {seq: e.seq - 1})
FOREACH (y IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (e)-[:PREV]->(y))
RETURN count(e) AS appended
