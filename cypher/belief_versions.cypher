// A belief's append-only history, oldest first; each version carries its breakdown as JSON text.
MATCH (v:BeliefVersion)-[:VERSION_OF]->(b:Belief {id: $id})
RETURN properties(v) AS version
ORDER BY v.version
