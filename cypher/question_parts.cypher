// What a question write reads of the graph (graph_service.from_graph.questions), each by its index, in one
// statement (one state of the graph): the unknowns $unknowns (each Unknown node with the items and decision
// snapshots it affects), the questions $questions, and every question asked about each of the targets $targets
// (by Question.target).
UNWIND $unknowns AS uid
MATCH (u:Unknown {id: uid})
OPTIONAL MATCH (u)-[:AFFECTS]->(t)
WITH uid, u, collect(CASE WHEN 'Item' IN labels(t) THEN t.id END) AS items,
     collect(CASE WHEN 'Snapshot' IN labels(t) THEN t.id END) AS decisions
RETURN 'unknown' AS part, uid AS key, properties(u) AS props, items, decisions
UNION ALL
UNWIND $questions AS qid
MATCH (q:Question {id: qid})
RETURN 'question' AS part, qid AS key, properties(q) AS props, [] AS items, [] AS decisions
UNION ALL
UNWIND $targets AS target
MATCH (q:Question {target: target})
RETURN 'about' AS part, target AS key, properties(q) AS props, [] AS items, [] AS decisions
