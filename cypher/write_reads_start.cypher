// Where a write's reads as of position $seq start: the version of what the graph keeps for writes (the
// head's `keeps`: graph_service.projection.KEPT_FOR_WRITES; null for a store written before it was kept),
// the store clock after the entry at $seq (graph_service.journal.clock; no entry at position 0), and the
// knowledge store's running fingerprint on its Fingerprint node $fingerprint with the position that last
// changed it (the sum as of $seq when that is not past it: most writes' rules move it, and then read it),
// by the head's, the entries' and the fingerprints' indexes. The sum and its position are read together,
// first (see fingerprint_upto).
MATCH (h:Head {id: 'journal'})
OPTIONAL MATCH (f:Fingerprint {id: $fingerprint})
WITH h, f.total AS total, f.count AS count, f.seq AS fingerprint_seq
OPTIONAL MATCH (e:Entry {seq: $seq})
RETURN h.keeps AS keeps, e.clock AS clock, total, count, fingerprint_seq
