// What the entries up to position $upto wrote on every recorded snapshot (their histories, kept on
// their WROTE edges), walked from each snapshot (`WITH s`, no label on the entry: see items_history_upto).
MATCH (s:Snapshot)
WITH s
MATCH (s)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN s.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
