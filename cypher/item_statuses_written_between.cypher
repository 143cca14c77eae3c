// The status each entry after position $after up to $until gave the Item nodes it wrote, in order: what
// the other domains need of a knowledge entry whose own part the graph already holds (an item's status
// is set on its node whenever an entry re-decides it or writes it first, so these are every change). An
// indexed range over the entries' positions: it costs the entries in the range and the items they wrote.
MATCH (e:Entry)-[w:WROTE]->(i:Item)
WHERE e.seq > $after AND e.seq <= $until
RETURN e.seq AS seq, i.id AS id, w.changes AS changes
ORDER BY seq, id
