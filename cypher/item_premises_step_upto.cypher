// One level of an upstream walk as of position $upto: the premises of every item in the frontier,
// each edge with the position that first wrote it (the caller keeps those up to $upto; null: the
// store was written before edges kept it).
UNWIND $asked.frontier AS fid
MATCH (i:Item {id: fid})-[r:DERIVED_FROM]->(p:Item)
RETURN DISTINCT i.id AS via, p.id AS id, r.since_seq AS since
