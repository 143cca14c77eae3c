// One level of a downstream walk as of position $upto: the items derived directly from any item in the
// frontier, each edge with the position that first wrote it (the caller keeps those up to $upto).
UNWIND $asked.frontier AS fid
MATCH (d:Item)-[r:DERIVED_FROM]->(i:Item {id: fid})
RETURN DISTINCT i.id AS via, d.id AS id, r.since_seq AS since
