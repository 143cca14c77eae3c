// The named beliefs as they are now, for a write's reads (graph_service.belief_parts_from_graph): each one's own
// properties (`now`), its live evidence rows counted by what the confidence arithmetic reads of them (`live`: how
// many rows share a direction, family, weight, credibility, derivation and provenance, with the writes of one of
// them) and its own rows of origin $counter_origin with their writes (`counters`, what its contradiction links
// read). The caller takes them as the beliefs were at a position when `beliefs_written_after`, run after this, says
// nothing past it wrote them: every change of a row writes its belief in the same entry (BeliefState.touch).
// Why: every entry that gives a belief evidence writes the belief, so its history and its rows grow with the store;
// a statement's write on a belief of 5,018 rows and writes (the benchmark mix at 10^5 entries) read both whole.
// A row's numbers come from its writes, not its properties: FalkorDB returns a double to 15 digits, and a tally
// must take away exactly the value it was given. The belief's properties are read last: an aggregation over its
// rows would copy them for each row.
// The ids come in a map (`$asked`), as item_reads_upto's do: one plan whatever their number.
UNWIND $asked.ids AS bid
MATCH (b:Belief {id: bid})
OPTIONAL MATCH (e:Evidence)-[:BEARS_ON]->(b)
WHERE NOT coalesce(e.retracted, false)
WITH b, e.direction AS direction, e.family AS family, e.weight AS weight, e.credibility AS credibility,
     e.derivation AS derivation, e.provenance_status AS provenance, count(e) AS rows, min(e.id) AS one_id
OPTIONAL MATCH (one:Evidence {id: one_id})
OPTIONAL MATCH (one)<-[ow:WROTE]-(ox)
WITH b, one, rows,
     collect(CASE WHEN ox IS NULL THEN null ELSE
       {label: 'Evidence', seq: ox.seq, op: ox.op, by: ox.by, at: ox.at, changes: ow.changes} END) AS one_writes
WITH b, collect(CASE WHEN one IS NULL THEN null ELSE {rows: rows, writes: one_writes} END) AS live
OPTIONAL MATCH (c:Evidence)-[:BEARS_ON]->(b)
WHERE c.origin = $counter_origin
OPTIONAL MATCH (c)<-[cw:WROTE]-(cx)
WITH b, live, c,
     collect(CASE WHEN cx IS NULL THEN null ELSE
       {label: 'Evidence', seq: cx.seq, op: cx.op, by: cx.by, at: cx.at, changes: cw.changes} END) AS c_writes
WITH b, live, collect(CASE WHEN c IS NULL THEN null ELSE c_writes END) AS counters
RETURN b.id AS id, properties(b) AS now, live, counters
