// The histories up to position $upto of the flags $ids (each Flag node's writes, with what each changed):
// the flags a knowledge write reads, by their index
// (`WITH`: walked from each node, not from every entry).
UNWIND $ids AS fid
MATCH (f:Flag {id: fid})
WITH f
MATCH (f)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN f.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
