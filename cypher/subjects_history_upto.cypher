// The histories up to position $upto of the subjects $ids that an operator's merge or split of entities
// moved (each Subject node's writes: the entity it joined), by their index (`WITH`: walked from each node,
// not from every entry).
UNWIND $ids AS sid
MATCH (s:Subject {id: sid})
WITH s
MATCH (s)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Subject' AS label, s.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
