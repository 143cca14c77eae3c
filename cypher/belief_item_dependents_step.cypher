// One level of a belief dependents walk: the evidence rows rooted in each Item of the frontier.
UNWIND $frontier AS fid
MATCH (e:Evidence)-[:ROOTED_IN]->(r:Item {id: fid})
WHERE NOT e.retracted
RETURN DISTINCT r.id AS via, e.id AS id
