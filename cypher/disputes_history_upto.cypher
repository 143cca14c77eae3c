// What the entries up to position $upto wrote on every dispute (their histories, kept on their WROTE
// edges), walked from each dispute (`WITH d`, no label on the entry: see items_history_upto), with the
// payload of the writes whose operation is in $payload_ops (a resolution, or an answer carrying one).
MATCH (d:Dispute)
WITH d
MATCH (d)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN d.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes,
       CASE WHEN e.op IN $payload_ops THEN e.payload END AS payload
