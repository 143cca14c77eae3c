// The assertions interpreting one observation, in claim order, with the evidence and belief each yielded.
MATCH (a:Assertion)-[:INTERPRETS]->(o:Observation {id: $id})
OPTIONAL MATCH (a)-[:YIELDED]->(e:Evidence)
WITH a, e
OPTIONAL MATCH (e)-[:BEARS_ON]->(b:Belief)
RETURN properties(a) AS assertion, e.id AS evidence, b.id AS belief
ORDER BY a.index
