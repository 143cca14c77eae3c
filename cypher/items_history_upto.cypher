// What the entries up to position $upto wrote on the named items (their histories, kept on their WROTE
// edges). Each item is found by its id and its writes walked from it (`WITH i`, and no label on the
// entry: otherwise FalkorDB ranges over every entry up to $upto by their position's index).
UNWIND $ids AS iid
MATCH (i:Item {id: iid})
WITH i
MATCH (i)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Item' AS label, i.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
