// How many journal entries are stored (a gap or a duplicate shows as a mismatch with the head).
MATCH (e:Entry)
RETURN count(e) AS entries, count(DISTINCT e.seq) AS positions
