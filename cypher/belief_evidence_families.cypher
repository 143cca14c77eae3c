// A belief's `belief_detail` read without the parts a selection of only its own fields, its evidence
// rows' fields and its families' ids, kinds, names and row counts does not need: its properties, every
// evidence row bearing on it and, naming its row, each row's family, each with the position that first
// wrote its edge; with the journal's head and projected position (a reader whose graph is behind
// catches up and reads again). Two pattern comprehensions where belief_detail has six: each costs
// the server a walk. No rows when no belief has this id.
MATCH (b:Belief {id: $id})
MATCH (h:Head {id: 'journal'})
RETURN h.seq AS head, h.projected AS projected,
       properties(b) AS belief,
       [(e:Evidence)-[eb:BEARS_ON]->(b) | {props: properties(e), since: eb.since_seq}] AS evidence,
       [(b)<-[:BEARS_ON]-(fe:Evidence)-[ff:FROM]->(f:Family) |
         {evidence: fe.id, id: f.id, kind: f.kind, name: f.name, since: ff.since_seq}] AS families
