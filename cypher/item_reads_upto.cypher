// Everything a knowledge write's rules read of the items $asked.ids as of position $upto, in one statement
// (graph_service.from_graph.knowledge_region.PartsFromGraph): a row for each item found, with its pending expiry times
// (graph_service.knowledge.expiry), the items derived from it and superseding it (each edge's first
// position), its unit's done time, the flags covering it (each COVERS edge's first position, the flag's
// writes and every item it covers) and its writes (with the payload of those whose op is one of $payload_ops:
// its assertions, and the store clock after each); then a row for each key those items are on (`id` null),
// with the items on it and the writes of every dispute about them (with the payload of those whose op is one
// of $resolution_ops: its resolutions).
// The keys' rows come after a UNION ALL, read once a key: read with each item, a key's items and its disputes'
// writes were read again for every item on it, which was most of this statement's time when a write read a
// key's items together (0.55 to 0.62x the time with the keys apart, 18 items on 3 keys, both stores of
// benchmarks.store_growth_writes).
// Walked from each item found by its id, never from every entry; the caller keeps what was written by $upto
// (a null first position: written before history was kept).
// The unit's done time is its node's (`unit_done`) when nothing past $upto wrote it (`unit_last`, its last
// write), and otherwise folded from its writes by $upto (`unit_writes`, read only then): a unit's writes grow
// with its key's history, and folding them was a third of this statement's time. The node's done time is read
// before its last write: Neo4j reads committed data, not one snapshot, and a write's new edges are in place
// before its changed properties, so a done time written past $upto comes with a last write past it.
// The item's own writes are collected last: a list carried through each later aggregation is copied by it.
// The ids come in a map, not as a list parameter: Neo4j 5 keys its plan cache on a list's size class too (1, 2 to 10,
// 11 to 127, 128 and more, measured on 5.26), and planned this statement again, 1.3 to 2.3 s of its processor on a
// young server, the first time a write read 2, 11 or 128 items; a map is one type whatever it holds.
// OPTIONAL MATCH and collect, not pattern comprehensions: FalkorDB caches a comprehension's plan with the
// relationship types and properties the graph had when it was first run, and a plan made on an empty store
// then reads nothing.
UNWIND $asked.ids AS iid
MATCH (i:Item {id: iid})
OPTIONAL MATCH (q:Due {item: i.id})
WHERE q.queued_at <= $upto AND (q.taken_at IS NULL OR q.taken_at > $upto)
WITH i, collect(q.expires) AS pending
OPTIONAL MATCH (d:Item)-[r:DERIVED_FROM]->(i)
WITH i, pending,
     collect(CASE WHEN d IS NULL THEN null ELSE {id: d.id, since: r.since_seq} END) AS dependents
OPTIONAL MATCH (n:Item)-[s:SUPERSEDES]->(i)
WITH i, pending, dependents,
     collect(CASE WHEN n IS NULL THEN null ELSE {id: n.id, since: s.since_seq} END) AS superseded_by
OPTIONAL MATCH (u:Unit {id: CASE WHEN i.key IS NULL THEN 'i:' + i.id ELSE 'k:' + i.key END})
WITH i, pending, dependents, superseded_by, u, u.done_time AS done_now
OPTIONAL MATCH (u)<-[uw:WROTE]-(ue)
WITH i, pending, dependents, superseded_by, u, done_now, max(ue.seq) AS unit_last
OPTIONAL MATCH (u)<-[uw:WROTE]-(ue)
WHERE unit_last > $upto AND ue.seq <= $upto
WITH i, pending, dependents, superseded_by, unit_last,
     CASE WHEN unit_last <= $upto THEN done_now END AS unit_done,
     collect(CASE WHEN ue IS NULL THEN null ELSE {seq: ue.seq, changes: uw.changes} END) AS unit_writes
OPTIONAL MATCH (i)<-[c:COVERS]-(f:Flag)
OPTIONAL MATCH (f)<-[fw:WROTE]-(fe)
WHERE fe.seq <= $upto
WITH i, pending, dependents, superseded_by, unit_last, unit_done, unit_writes, f, c,
     collect(CASE WHEN fe IS NULL THEN null ELSE
       {seq: fe.seq, op: fe.op, by: fe.by, at: fe.at, changes: fw.changes} END) AS flag_writes
OPTIONAL MATCH (f)-[fc:COVERS]->(x:Item)
WITH i, pending, dependents, superseded_by, unit_last, unit_done, unit_writes, f, c, flag_writes,
     collect(CASE WHEN x IS NULL THEN null ELSE {item: x.id, since_seq: fc.since_seq} END) AS flag_covers
WITH i, pending, dependents, superseded_by, unit_last, unit_done, unit_writes,
     collect(CASE WHEN f IS NULL THEN null ELSE
       {id: f.id, since_seq: c.since_seq, writes: flag_writes, covers: flag_covers} END) AS flags
OPTIONAL MATCH (i)<-[w:WROTE]-(e)
WHERE e.seq <= $upto
RETURN i.id AS id,
       collect(CASE WHEN e IS NULL THEN null ELSE
         {seq: e.seq, op: e.op, by: e.by, at: e.at, clock: e.clock, changes: w.changes,
          payload: CASE WHEN e.op IN $payload_ops THEN e.payload END} END) AS writes,
       pending, dependents, superseded_by, unit_last, unit_done, unit_writes, flags,
       null AS key, null AS on_key, null AS disputes
UNION ALL
UNWIND $asked.ids AS iid
MATCH (j:Item {id: iid})
WITH DISTINCT j.key AS key
WHERE key IS NOT NULL
OPTIONAL MATCH (k:Item {key: key})
WHERE k.learned_at <= $upto
WITH key, collect(k.id) AS on_key, collect(k) AS key_items
UNWIND CASE WHEN key_items = [] THEN [null] ELSE key_items END AS k
OPTIONAL MATCH (k)<-[:ABOUT]-(a:Dispute)
WITH key, on_key, collect(DISTINCT a) AS about
UNWIND CASE WHEN about = [] THEN [null] ELSE about END AS a
OPTIONAL MATCH (a)<-[aw:WROTE]-(ae)
WHERE ae.seq <= $upto
WITH key, on_key, a,
     collect(CASE WHEN ae IS NULL THEN null ELSE
       {seq: ae.seq, op: ae.op, by: ae.by, at: ae.at, changes: aw.changes,
        payload: CASE WHEN ae.op IN $resolution_ops THEN ae.payload END} END) AS dispute_writes
RETURN null AS id, null AS writes, null AS pending, null AS dependents, null AS superseded_by, null AS unit_last,
       null AS unit_done, null AS unit_writes, null AS flags, key, on_key,
       collect(CASE WHEN a IS NULL THEN null ELSE {id: a.id, writes: dispute_writes} END) AS disputes
