// One level of a belief dependents walk as of position $upto: the evidence rows rooted in each Belief of
// the frontier, each edge with the position that first wrote it (the caller keeps those up to $upto;
// null: the store was written before edges kept it), and each row's history up to $upto (`writes`: the
// caller keeps the rows not retracted then, as the head's step keeps those not retracted now).
UNWIND $asked.frontier AS fid
MATCH (e:Evidence)-[r:ROOTED_IN]->(n:Belief {id: fid})
RETURN DISTINCT n.id AS via, e.id AS id, r.since_seq AS since,
       [(e)<-[w:WROTE]-(x) WHERE x.seq <= $upto |
         {label: 'Evidence', seq: x.seq, op: x.op, by: x.by, at: x.at, changes: w.changes}] AS writes
