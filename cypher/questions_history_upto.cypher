// What the entries up to position $upto wrote on every Question and Unknown node asked or declared by
// then (their histories, kept on their WROTE edges), for the questions and unknowns as of that position.
// asked_at and declared_at never change once written, so they leave out the nodes made later; each
// node's writes are walked from it (`WITH q`, and no label on the entry: otherwise FalkorDB ranges over
// every entry up to $upto by their position's index).
MATCH (q:Question)
WHERE q.asked_at <= $upto
WITH q
MATCH (q)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Question' AS label, q.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
MATCH (u:Unknown)
WHERE u.declared_at <= $upto
WITH u
MATCH (u)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Unknown' AS label, u.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
