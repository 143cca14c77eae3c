// What the entries up to position $upto wrote on every item, with the payload of those whose op is one
// of $payload_ops (graph_service.knowledge.as_of): every item's writes, walked from each item (`WITH i`,
// no label on the entry: FalkorDB would otherwise range over every entry up to $upto).
MATCH (i:Item)
WITH i
MATCH (i)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN i.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes,
       CASE WHEN e.op IN $payload_ops THEN e.payload END AS payload
