// Append one journal entry that changes nothing in the graph (a note) if the head is still where the
// writer read it (compare-and-set), and move the projected position past it in the same statement
// when the graph holds everything before it: one write instead of an append and a projection that
// only moves the marker. Otherwise as append_entry (the marker stays; a catch-up moves it).
// Writing a constant takes the head's write lock first (Neo4j), so the check reads the latest head.
// Zero rows returned: the writer lost the race.
MATCH (h:Head {id: 'journal'})
SET h.lock = true
REMOVE h.lock
WITH h
WHERE h.hash = $prev AND h.seq = $seq - 1
CREATE (e:Entry)
SET e = $entry
SET h.hash = $entry.hash, h.seq = $seq,
    h.projected = CASE WHEN h.projected = $seq - 1 THEN $seq ELSE h.projected END
WITH e, h
OPTIONAL MATCH (p:Entry {seq: $seq - 1})
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | CREATE (e)-[:PREV]->(x))
RETURN e.seq AS seq, h.projected AS projected
