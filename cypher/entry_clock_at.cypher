// The store clock after the entry at position $seq (graph_service.journal.clock), by the entries'
// position index; null for an entry stored before the clock was kept, no row past the head.
MATCH (e:Entry {seq: $seq})
RETURN e.clock AS clock
