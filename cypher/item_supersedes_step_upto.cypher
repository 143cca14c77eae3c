// One level of a knowledge component's walk as of position $upto: the items any item in the frontier
// supersedes, each edge with the position that first wrote it (the caller keeps those up to $upto).
UNWIND $asked.frontier AS fid
MATCH (i:Item {id: fid})-[r:SUPERSEDES]->(o:Item)
RETURN DISTINCT i.id AS via, o.id AS id, r.since_seq AS since
