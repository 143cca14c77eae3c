// Every evidence row bearing on a belief, with its family, the nodes it is rooted in and the assertion that yielded it.
MATCH (e:Evidence)-[:BEARS_ON]->(b:Belief {id: $id})
OPTIONAL MATCH (a:Assertion)-[:YIELDED]->(e)
WITH e, collect(a.id) AS assertions
RETURN properties(e) AS evidence,
       [(e)-[:ROOTED_IN]->(r) | {id: r.id, label: labels(r)[0]}] AS roots,
       assertions
ORDER BY e.created_seq, e.id
