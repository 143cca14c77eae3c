// What the entries up to position $upto wrote on the named beliefs, belief versions, evidence rows
// and families (their histories, kept on their WROTE edges), for a belief read as of that position.
UNWIND $ids AS nid
MATCH (n:Belief {id: nid})<-[w:WROTE]-(e:Entry)
WHERE e.seq <= $upto
RETURN 'Belief' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:BeliefVersion {id: nid})<-[w:WROTE]-(e:Entry)
WHERE e.seq <= $upto
RETURN 'BeliefVersion' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Evidence {id: nid})<-[w:WROTE]-(e:Entry)
WHERE e.seq <= $upto
RETURN 'Evidence' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
UNION ALL
UNWIND $ids AS nid
MATCH (n:Family {id: nid})<-[w:WROTE]-(e:Entry)
WHERE e.seq <= $upto
RETURN 'Family' AS label, n.id AS id, e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, w.changes AS changes
