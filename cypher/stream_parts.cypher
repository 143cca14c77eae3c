// What a stream or statement write reads of the graph (graph_service.from_graph.stream), each by its index, in one
// statement (one state of the graph): the observers $asked.observers (an Actor node that keeps a stream), which of
// the pair keys $asked.pairs an observer has a row of (the Observation node of its first row of the pair,
// `first_of`), who spoke last in the conversations $asked.conversations (Conversation nodes) and which of the
// observations $asked.observations were written. The four lists come in a map (see item_reads_upto): as list
// parameters each combination of their sizes was a plan of its own on Neo4j.
UNWIND $asked.observers AS name
MATCH (a:Actor {id: name})
WHERE a.observer = true
RETURN 'observer' AS part, name AS key,
       {wordless: a.wordless, declared: a.declared, view: a.view, boundary_tick: a.boundary_tick} AS value
UNION ALL
UNWIND $asked.pairs AS pair
MATCH (o:Observation {first_of: pair})
RETURN 'first' AS part, pair AS key, true AS value
UNION ALL
UNWIND $asked.conversations AS cid
MATCH (c:Conversation {id: cid})
RETURN 'conversation' AS part, cid AS key, c.last_speaker AS value
UNION ALL
UNWIND $asked.observations AS oid
MATCH (o:Observation {id: oid})
RETURN 'observation' AS part, oid AS key, true AS value
