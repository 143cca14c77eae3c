// The Fingerprint node $id (the knowledge store's running fingerprint: graph_service.state) with the
// position that last changed it, and its writes up to position $upto (their changes), which the caller
// folds only when a later entry changed it.
// Its sum and that position are read together, once, before anything else: a write landing while this runs
// (Neo4j reads committed data, not one snapshot) then cannot give a sum from after $upto with a position
// from before it.
MATCH (f:Fingerprint {id: $id})
WITH f, f.total AS total, f.count AS count, f.seq AS seq
OPTIONAL MATCH (f)<-[w:WROTE]-(e)
WHERE seq > $upto AND e.seq <= $upto
RETURN total, count, seq,
       collect(CASE WHEN e IS NULL THEN null ELSE {seq: e.seq, changes: w.changes} END) AS writes
