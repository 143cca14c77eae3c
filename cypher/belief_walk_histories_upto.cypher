// What the entries up to position $upto wrote on the named nodes of a belief walk (beliefs, evidence
// rows, observations, items: their histories, kept on their WROTE edges), to describe each as it was
// then. Each node is found by its id and its writes walked from it (`WITH n`, and no label on the
// entry: otherwise FalkorDB ranges over every entry up to $upto by their position's index).
UNWIND $ids AS nid
MATCH (n:Belief {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Belief' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Evidence {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Evidence' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Observation {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Observation' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Item {id: nid})
WITH n
MATCH (n)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN 'Item' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
