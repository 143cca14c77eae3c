// The hash, the store clock and the Merkle tree hashes stored with the entries at the positions $seqs, by the
// entries' index: where a writer that replays nothing starts from (Journal.stored_position reads O(log n)).
UNWIND $seqs AS s
MATCH (e:Entry {seq: s})
RETURN e.seq AS seq, e.hash AS hash, e.clock AS clock, e.tree AS tree
