// The named beliefs as of position $upto, for a write's reads (graph_service.belief_parts_from_graph): a belief's
// own properties (`now`) when nothing past $upto wrote it (`last`, its last write), and otherwise its writes up to
// $upto (`writes`, read only then) for the caller to fold. Every entry that gives a belief evidence writes it, so
// its history grows with the store: folding it was 59 ms of a statement's write on a belief of 5,018 writes at
// 10^5 entries of the benchmark mix.
// The properties are read before the last write: Neo4j reads committed data, not one snapshot, and a write's new
// edges are in place before its changed properties, so properties written past $upto come with a last write past it.
// The ids come in a map (`$asked`), as item_reads_upto's do: one plan whatever their number.
UNWIND $asked.ids AS bid
MATCH (b:Belief {id: bid})
WITH b, properties(b) AS now
OPTIONAL MATCH (b)<-[:WROTE]-(e)
WITH b, now, max(e.seq) AS last
OPTIONAL MATCH (b)<-[w:WROTE]-(x)
WHERE last > $upto AND x.seq <= $upto
RETURN b.id AS id, last, CASE WHEN last <= $upto THEN now END AS now,
       collect(CASE WHEN x IS NULL THEN null ELSE
         {label: 'Belief', seq: x.seq, op: x.op, by: x.by, at: x.at, changes: w.changes} END) AS writes
