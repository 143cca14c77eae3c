// The independent source families of a belief's evidence, with the actors they stand for and their row counts.
MATCH (e:Evidence)-[:BEARS_ON]->(b:Belief {id: $id})
MATCH (e)-[:FROM]->(f:Family)
OPTIONAL MATCH (f)-[:REPRESENTS]->(actor:Actor)
WITH f, collect(DISTINCT e) AS rows, collect(DISTINCT actor.id) AS actors
RETURN f.id AS id, f.kind AS kind, f.name AS name, actors,
       size(rows) AS rows, size([x IN rows WHERE NOT x.retracted]) AS live_rows
ORDER BY id
