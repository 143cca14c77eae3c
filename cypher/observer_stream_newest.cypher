// An observer's Actor node and, of the Observation nodes OBSERVED_BY it, for each weight, those at or after the
// tick of the $k-th newest of that weight (kept: 'newest') and those written no later than the $k-th first written
// of that weight (kept: 'first'; every one of a weight that has fewer), each with how many rows of its weight the
// observer has: what its recall at the head ranks when no row left out can enter the top $k
// (graph_service.stream.recall.recall_of_newest). One statement, so one state of the graph. A row may come twice.
// A heard message is OBSERVED_BY its hearer too but is no row of its stream; the filter on it follows a WITH, or
// FalkorDB would start from every Observation node.
MATCH (a:Actor {id: $observer})
RETURN 'Actor' AS label, properties(a) AS props, null AS weight_rows, null AS kept
UNION ALL
MATCH (:Actor {id: $observer})<-[:OBSERVED_BY]-(o:Observation)
WITH o WHERE o.observer = $observer
WITH o ORDER BY o.tick DESC
WITH o.weight AS weight, collect(o) AS rows
WITH rows, rows[CASE WHEN size(rows) < $k THEN size(rows) ELSE $k END - 1].tick AS boundary
UNWIND rows AS o
WITH o, size(rows) AS weight_rows, boundary
WHERE o.tick >= boundary
RETURN 'Observation' AS label, properties(o) AS props, weight_rows, 'newest' AS kept
UNION ALL
MATCH (:Actor {id: $observer})<-[:OBSERVED_BY]-(o:Observation)
WITH o WHERE o.observer = $observer
WITH o ORDER BY o.entry
WITH o.weight AS weight, collect(o) AS rows
WITH rows, rows[CASE WHEN size(rows) < $k THEN size(rows) ELSE $k END - 1].entry AS boundary
UNWIND rows AS o
WITH o, size(rows) AS weight_rows, boundary
WHERE o.entry <= boundary
RETURN 'Observation' AS label, properties(o) AS props, weight_rows, 'first' AS kept
