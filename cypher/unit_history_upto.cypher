// The histories up to position $upto of the knowledge units $ids (each Unit node's writes: its done time
// in the incremental evaluation's order, as each changed it),
// by their index (`WITH`: walked from each node, not from every entry).
UNWIND $ids AS uid
MATCH (u:Unit {id: uid})
WITH u
MATCH (u)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN u.id AS id, e.seq AS seq, w.changes AS changes
