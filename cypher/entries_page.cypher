// Journal entries after a position, in order, at most $limit of them.
MATCH (e:Entry)
WHERE e.seq > $after
RETURN e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, e.payload AS payload, e.prev AS prev, e.hash AS hash
ORDER BY e.seq
LIMIT $limit
