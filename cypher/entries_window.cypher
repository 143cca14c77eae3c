// Journal entries at the positions after $after, at most $limit of them ($after + 1 to $after + $limit), in
// order, with what entries_page gives of each. Positions are contiguous, so on a sound store this is the page
// entries_page gives; read as a window, the server reads and sorts only the page, where entries_page reads every
// entry past $after (FalkorDB sorts an index range whole). Fewer rows than $limit: the journal ends in the
// window, or a position in it is missing (the caller reads entries_page to tell which).
MATCH (e:Entry)
WHERE e.seq > $after AND e.seq <= $after + $limit
WITH e
ORDER BY e.seq
RETURN e.seq AS seq, e.op AS op, e.by AS by, e.at AS at, e.payload AS payload, e.prev AS prev, e.hash AS hash,
       e.tree AS tree, e.clock AS clock, [(e)-[:PREV]->(p) | p.seq] AS prev_links
ORDER BY seq
