// One level of a belief upstream walk: the evidence rows bearing on each belief in the frontier.
UNWIND $frontier AS fid
MATCH (e:Evidence)-[:BEARS_ON]->(b:Belief {id: fid})
WHERE NOT e.retracted
RETURN DISTINCT b.id AS via, e.id AS id
