// What the entries up to position $upto wrote on the observer's Actor node and on every Observation
// OBSERVED_BY it then (their histories, kept on their WROTE edges), for its recall as of that position.
// The observer is found by its id and its rows walked from it (`WITH a`, `WITH o`, and no label on the
// entry: otherwise FalkorDB ranges over every entry up to $upto by their position's index).
MATCH (a:Actor {id: $observer})
WITH a
MATCH (a)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Actor' AS label, a.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
MATCH (a:Actor {id: $observer})
WITH a
MATCH (a)<-[r:OBSERVED_BY]-(o)
WHERE r.since_seq IS NULL OR r.since_seq <= $upto
WITH o
MATCH (o)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Observation' AS label, o.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
