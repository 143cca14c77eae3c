// One level of a belief dependents walk: the evidence rows rooted in each Belief of the frontier.
UNWIND $frontier AS fid
MATCH (e:Evidence)-[:ROOTED_IN]->(r:Belief {id: fid})
WHERE NOT e.retracted
RETURN DISTINCT r.id AS via, e.id AS id
