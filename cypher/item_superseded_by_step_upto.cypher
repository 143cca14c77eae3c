// One level of a knowledge component's walk as of position $upto: the items that supersede any item in
// the frontier, each edge with the position that first wrote it (the caller keeps those up to $upto).
UNWIND $asked.frontier AS fid
MATCH (n:Item)-[r:SUPERSEDES]->(i:Item {id: fid})
RETURN DISTINCT i.id AS via, n.id AS id, r.since_seq AS since
