// A belief and what its evidence, breakdown and families fields answer, in one read: its properties,
// its newest version; every evidence row bearing on it; and, each naming its row (or family), the
// nodes a row is rooted in, the assertions that yielded it, its family, and the actors a family
// stands for. Each carries the position that first wrote its edge (`since`, for reads as of a
// position). Flat lists, joined by the caller: FalkorDB returns null for a pattern comprehension
// nested in another, and each comprehension has variables of its own (FalkorDB 4.16 confused ones
// reused between them). With the journal's head and projected position: a reader whose graph is
// behind the journal (a writer between its append and its projection) catches up and reads again.
// No rows when no belief has this id.
MATCH (b:Belief {id: $id})
MATCH (h:Head {id: 'journal'})
RETURN h.seq AS head, h.projected AS projected,
       properties(b) AS belief,
       [(v:BeliefVersion)-[:VERSION_OF]->(b) WHERE v.version = b.version | properties(v)] AS latest,
       [(e:Evidence)-[eb:BEARS_ON]->(b) | {props: properties(e), since: eb.since_seq}] AS evidence,
       [(b)<-[:BEARS_ON]-(re:Evidence)-[rr:ROOTED_IN]->(r) |
         {evidence: re.id, id: r.id, label: labels(r)[0], since: rr.since_seq}] AS roots,
       [(b)<-[:BEARS_ON]-(ae:Evidence)<-[ay:YIELDED]-(a:Assertion) |
         {evidence: ae.id, id: a.id, since: ay.since_seq}] AS assertions,
       [(b)<-[:BEARS_ON]-(fe:Evidence)-[ff:FROM]->(f:Family) |
         {evidence: fe.id, id: f.id, kind: f.kind, name: f.name, since: ff.since_seq}] AS families,
       [(b)<-[:BEARS_ON]-(:Evidence)-[:FROM]->(xf:Family)-[xr:REPRESENTS]->(x:Actor) |
         {family: xf.id, id: x.id, since: xr.since_seq}] AS actors
