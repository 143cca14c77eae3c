// Journal entries after a position, in order, at most $limit of them, with their Merkle tree hashes,
// the store clock after each (null where written before it was kept) and the positions their PREV edges
// point at (verify checks those edges and the clock).
MATCH (e:Entry)
WHERE e.seq > $after
WITH e
ORDER BY e.seq
LIMIT $limit
RETURN e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, e.payload AS payload, e.prev AS prev, e.hash AS hash,
       e.tree AS tree, e.clock AS clock, [(e)-[:PREV]->(p) | p.seq] AS prev_links
ORDER BY seq
