// The items stored on any of the keys $asked.keys by position $upto, by the index on the items' key: where a
// write that names a key (a new fact's, a resolved dispute's, a flag's) starts its knowledge region; each with
// the key it is on, so a read of several keys tells them apart. The keys come in a map (see item_reads_upto).
UNWIND $asked.keys AS k
MATCH (i:Item {key: k})
WITH i, k
WHERE i.learned_at <= $upto
RETURN DISTINCT i.id AS id, k AS key
