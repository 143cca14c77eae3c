// Once, for a store written before beliefs kept their rank: every belief without one gets it (the
// confidence in units of 1e-9, rounded as graph_service.beliefs.records.confidence_key does),
// and the head says it is done, so later starts skip it. A whole-store write, run at most once per store.
MATCH (h:Head {id: 'journal'})
WHERE h.belief_rank IS NULL
OPTIONAL MATCH (b:Belief)
WHERE b.rank IS NULL AND b.confidence IS NOT NULL
WITH h, collect(b) AS unranked
FOREACH (b IN unranked | SET b.rank = toInteger(round(b.confidence * 1000000000.0)))
SET h.belief_rank = true
RETURN size(unranked) AS ranked
