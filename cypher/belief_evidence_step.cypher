// One level of a belief upstream walk: the evidence rows bearing on each belief in the frontier.
// The node is found by its id first (`WITH`): FalkorDB otherwise scans every Evidence node for the
// `NOT e.retracted` filter before it joins.
UNWIND $asked.frontier AS fid
MATCH (b:Belief {id: fid})
WITH b
MATCH (e:Evidence)-[:BEARS_ON]->(b)
WHERE NOT e.retracted
RETURN DISTINCT b.id AS via, e.id AS id
