// The assertions whose evidence bears on a belief: what was said, by whom, in which message.
MATCH (a:Assertion)-[:YIELDED]->(e:Evidence)-[:BEARS_ON]->(b:Belief {id: $id})
MATCH (a)-[:INTERPRETS]->(o:Observation)
RETURN properties(a) AS assertion, e.id AS evidence, e.direction AS direction, e.weight AS weight,
       e.retracted AS retracted, o.id AS observation, o.text AS text, o.speaker AS speaker, o.tick AS tick
ORDER BY o.entry, a.index
