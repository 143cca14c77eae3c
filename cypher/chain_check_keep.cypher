// Keep how far a background check found the journal's chain sound, with the hash of the entry there and when;
// it never moves back (a check up to an earlier position, finishing late, keeps nothing).
MERGE (c:ChainCheck {id: 'journal'})
WITH c
WHERE coalesce(c.seq, 0) < $seq
SET c.seq = $seq, c.hash = $hash, c.at = $at
RETURN c.seq AS seq
