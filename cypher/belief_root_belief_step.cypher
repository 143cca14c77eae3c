// One level of a belief upstream walk: the Belief nodes each evidence row in the frontier is rooted in.
UNWIND $asked.frontier AS fid
MATCH (e:Evidence {id: fid})-[:ROOTED_IN]->(r:Belief)
RETURN DISTINCT e.id AS via, r.id AS id
