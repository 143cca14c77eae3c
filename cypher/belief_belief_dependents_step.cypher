// One level of a belief dependents walk: the evidence rows rooted in each Belief of the frontier.
// The node is found by its id first (`WITH`): FalkorDB otherwise scans every Evidence node for the
// `NOT e.retracted` filter before it joins.
UNWIND $asked.frontier AS fid
MATCH (r:Belief {id: fid})
WITH r
MATCH (e:Evidence)-[:ROOTED_IN]->(r)
WHERE NOT e.retracted
RETURN DISTINCT r.id AS via, e.id AS id
