// One level of a belief upstream walk as of position $upto: the Belief nodes each evidence row in the
// frontier is rooted in, each edge with the position that first wrote it (the caller keeps those up to
// $upto; null: the store was written before edges kept it).
UNWIND $asked.frontier AS fid
MATCH (e:Evidence {id: fid})-[r:ROOTED_IN]->(n:Belief)
RETURN DISTINCT e.id AS via, n.id AS id, r.since_seq AS since
