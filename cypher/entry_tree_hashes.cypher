// The Merkle tree hashes stored with the entries at these positions (a proof reads O(log n) of them).
MATCH (e:Entry)
WHERE e.seq IN $seqs
RETURN e.seq AS seq, e.tree AS tree
