// One level of an upstream walk: the premises of every item in the frontier.
UNWIND $asked.frontier AS fid
MATCH (i:Item {id: fid})-[:DERIVED_FROM]->(p:Item)
RETURN DISTINCT i.id AS via, p.id AS id
