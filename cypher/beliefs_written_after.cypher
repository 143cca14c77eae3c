// The beliefs that entries past position $upto wrote, for a write's reads (graph_service.from_graph.belief_parts),
// run after `beliefs_counted_now`: a belief none of them wrote is as it was at $upto, so it may be read as it is
// now. Neo4j reads committed data, not one snapshot, and a write's new edges are in place before its changed
// properties, so a write that changed what that read saw has its WROTE edge in place when this runs.
// At most $most entries are looked at, in no order (no sort of what lies past $upto): when that many come back,
// the caller cannot tell what the others wrote and takes every belief as written past $upto.
// Why the entries past the position, not each belief's last write: a belief that collects evidence is written by
// an entry for each row, so its last write was a walk over a history that grows with the store (3.5 ms for the
// 5,018 writes of one belief at 10^5 entries); the entries past a write's position are the few that landed while
// it read.
MATCH (x:Entry)
WHERE x.seq > $upto
WITH x
LIMIT $most
OPTIONAL MATCH (x)-[:WROTE]->(b:Belief)
RETURN x.seq AS seq, collect(b.id) AS beliefs
