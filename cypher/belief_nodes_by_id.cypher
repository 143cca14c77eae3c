// Summaries of the belief-layer nodes named (beliefs, evidence, observations, items) for a walk's answer.
UNWIND $ids AS nid
OPTIONAL MATCH (b:Belief {id: nid})
WITH nid, b
OPTIONAL MATCH (e:Evidence {id: nid})
WITH nid, b, e
OPTIONAL MATCH (o:Observation {id: nid})
WITH nid, b, e, o
OPTIONAL MATCH (i:Item {id: nid})
RETURN nid AS id,
       coalesce(b.status, e.direction, o.kind, i.status) AS status,
       coalesce(b.proposition, e.family, o.text, o.subject, i.summary) AS summary,
       b.confidence AS confidence,
       coalesce(e.retracted, o.inaccurate, false) AS gone
