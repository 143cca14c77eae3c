// A belief's newest version (its breakdown is the belief's current one).
MATCH (v:BeliefVersion)-[:VERSION_OF]->(b:Belief {id: $id})
WHERE v.version = b.version
RETURN properties(v) AS version
