// The flags covering the named items: for each COVERS edge its item and first position (since_seq;
// null before history was kept), with every write of the flag up to position $upto (its history).
UNWIND $ids AS iid
MATCH (i:Item {id: iid})<-[c:COVERS]-(f:Flag)
WITH i, c, f
MATCH (f)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN f.id AS id, i.id AS item, c.since_seq AS since_seq, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at,
       w.changes AS changes
