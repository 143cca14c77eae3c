// One declared unknown's stored properties by id, with the items and decision snapshots it affects (as
// unknowns_page gives each); no row for an id never declared.
MATCH (u:Unknown {id: $id})
OPTIONAL MATCH (u)-[:AFFECTS]->(t)
WITH u, collect(CASE WHEN 'Item' IN labels(t) THEN t.id END) AS items,
     collect(CASE WHEN 'Snapshot' IN labels(t) THEN t.id END) AS decisions
RETURN properties(u) AS unknown, items, decisions
