// The histories up to position $upto of every dispute about any of the items $ids (each Dispute node's
// writes, with what each changed), and the payload of the writes whose operation is in $payload_ops
// (a resolution, or an answer carrying one): a knowledge region's disputes and the answers given on them.
UNWIND $ids AS iid
MATCH (i:Item {id: iid})<-[:ABOUT]-(d:Dispute)
WITH DISTINCT d
MATCH (d)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN d.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes,
       CASE WHEN e.op IN $payload_ops THEN e.payload END AS payload
