// An observer's Actor node and every Observation node OBSERVED_BY it, as they are now: what its recall at
// the head ranks (graph_service.stream.as_of.stream_now). One statement, so one state of the graph.
MATCH (a:Actor {id: $observer})
RETURN 'Actor' AS label, properties(a) AS props
UNION ALL
MATCH (:Actor {id: $observer})<-[:OBSERVED_BY]-(o:Observation)
RETURN 'Observation' AS label, properties(o) AS props
