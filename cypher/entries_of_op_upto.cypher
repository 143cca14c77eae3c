// The entries of one operation $op up to position $upto (their position, author and payload), in
// order: by the index on the entries' op, then their position (`WITH e` keeps FalkorDB from ranging
// over every entry up to $upto by the position's index instead). Ticks and refusals change no node.
MATCH (e:Entry {op: $op})
WITH e
WHERE e.seq <= $upto
RETURN e.seq AS seq, e.by AS by, e.payload AS payload
ORDER BY seq
