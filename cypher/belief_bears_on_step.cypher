// One level of a belief dependents walk: the belief each evidence row in the frontier bears on.
UNWIND $asked.frontier AS fid
MATCH (e:Evidence {id: fid})-[:BEARS_ON]->(b:Belief)
RETURN DISTINCT e.id AS via, b.id AS id
