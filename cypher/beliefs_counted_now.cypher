// The named beliefs as they are now, for a write's reads (graph_service.from_graph.belief_parts): each one's own
// properties (`now`), the values of its live evidence rows with how many rows hold each (`live`: its Tally nodes,
// beliefs.projecting, whose `value` is canonical JSON, exact where a double property is not), and its own rows of
// origin $counter_origin with their writes (`counters`, what its contradiction links read). The caller takes them
// as the beliefs were at a position when `beliefs_written_after`, run after this, says nothing past it wrote them:
// every change of a row writes its belief in the same entry (BeliefState.touch).
// Why: every entry that gives a belief evidence writes the belief, so its rows grow with the store; counting them
// here took 13.9 ms for a belief of 5,018 rows (the benchmark mix at 10^5 entries). A belief has a Tally node per
// value its rows ever held, and its counter rows are found from the beliefs it contradicts (a counter row is
// rooted in the belief it counts), so this reads neither its rows nor its history.
// The ids come in a map (`$asked`), as item_reads_upto's do: one plan whatever their number.
UNWIND $asked.ids AS bid
MATCH (b:Belief {id: bid})
OPTIONAL MATCH (t:Tally)-[:TALLIES]->(b)
WHERE t.rows > 0
WITH b, collect(CASE WHEN t IS NULL THEN null ELSE {rows: t.rows, value: t.value} END) AS live
OPTIONAL MATCH (b)-[:CONTRADICTS]-(p:Belief)
WITH DISTINCT b, live, p
OPTIONAL MATCH (p)<-[:ROOTED_IN]-(c:Evidence)
WHERE c.origin = $counter_origin AND c.belief = b.id
OPTIONAL MATCH (c)<-[cw:WROTE]-(cx)
WITH b, live, c,
     collect(CASE WHEN cx IS NULL THEN null ELSE
       {label: 'Evidence', seq: cx.seq, op: cx.op, by: cx.by, at: cx.at, changes: cw.changes} END) AS c_writes
WITH b, live, collect(CASE WHEN c IS NULL THEN null ELSE c_writes END) AS counters
RETURN b.id AS id, properties(b) AS now, live, counters
