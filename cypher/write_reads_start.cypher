// Where a write's reads as of position $seq start: the version of what the graph keeps for writes (the
// head's `keeps`: graph_service.projection.KEPT_FOR_WRITES; null for a store written before it was kept)
// and the store clock after the entry at $seq (graph_service.journal.clock; no entry at position 0), by
// the head's and the entries' indexes.
MATCH (h:Head {id: 'journal'})
OPTIONAL MATCH (e:Entry {seq: $seq})
RETURN h.keeps AS keeps, e.clock AS clock
