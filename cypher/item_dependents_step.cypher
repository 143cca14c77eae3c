// One level of a downstream walk: the items derived directly from any item in the frontier.
UNWIND $asked.frontier AS fid
MATCH (d:Item)-[:DERIVED_FROM]->(i:Item {id: fid})
RETURN DISTINCT i.id AS via, d.id AS id
