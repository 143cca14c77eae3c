// What the entries up to position $upto wrote on the named items, with the payload of those whose op is
// one of $payload_ops (what says an item's assertions: graph_service.knowledge.as_of). Each item is found
// by its id and its writes walked from it (`WITH i`, no label on the entry: see items_history_upto).
UNWIND $ids AS iid
MATCH (i:Item {id: iid})
WITH i
MATCH (i)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN i.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes,
       CASE WHEN e.op IN $payload_ops THEN e.payload END AS payload
