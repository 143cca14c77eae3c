// What the entries up to position $upto wrote on every flag (their histories, kept on their WROTE
// edges), walked from each flag (`WITH f`, no label on the entry: see items_history_upto).
MATCH (f:Flag)
WITH f
MATCH (f)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN f.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
