// What the entries up to position $upto wrote on the named beliefs, belief versions and evidence rows
// (their histories, kept on their WROTE edges), for a belief read as of that position. Each node is
// found by its id and its writes walked from it (`WITH n`, and no label on the entry: otherwise
// FalkorDB ranges over every entry up to $upto by their position's index, the whole store's past).
// Families need no history: a family's properties are its id's (beliefs.records.family_props).
UNWIND $ids AS nid
MATCH (n:Belief {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Belief' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:BeliefVersion {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'BeliefVersion' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Evidence {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Evidence' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
