// One level of a belief dependents walk as of position $upto: the belief each evidence row in the
// frontier bears on, each edge with the position that first wrote it (the caller keeps those up to
// $upto; null: the store was written before edges kept it).
UNWIND $asked.frontier AS fid
MATCH (e:Evidence {id: fid})-[r:BEARS_ON]->(b:Belief)
RETURN DISTINCT e.id AS via, b.id AS id, r.since_seq AS since
