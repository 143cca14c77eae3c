// One evidence row by id, with its family, the nodes it is rooted in and the assertions that yielded
// it (its ROOTED_IN and YIELDED edges); no row for an id never written.
MATCH (e:Evidence {id: $id})
OPTIONAL MATCH (a:Assertion)-[:YIELDED]->(e)
WITH e, collect(a.id) AS assertions
RETURN properties(e) AS evidence,
       [(e)-[:ROOTED_IN]->(r) | {id: r.id, label: labels(r)[0]}] AS roots,
       assertions
