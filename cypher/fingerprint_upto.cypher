// The Fingerprint node $id (the knowledge store's running fingerprint: graph_service.state) with the
// position that last changed it, and its writes up to position $upto (their changes), which the caller
// folds only when a later entry changed it.
MATCH (f:Fingerprint {id: $id})
OPTIONAL MATCH (f)<-[w:WROTE]-(e)
WHERE e.seq <= $upto AND f.seq > $upto
RETURN f.total AS total, f.count AS count, f.seq AS seq,
       collect(CASE WHEN e IS NULL THEN null ELSE {seq: e.seq, changes: w.changes} END) AS writes
