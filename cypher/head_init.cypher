// The journal head: the compare-and-set anchor of appends (hash, seq) and of projection (projected),
// created with the journal's format, a random log id (the checkpoints' origin names it) and `keeps`, the
// version of what the graph keeps for writes beside the store's own nodes (graph_service.projection
// .KEPT_FOR_WRITES), kept since the first entry. A head of an empty journal written before formats
// existed takes the current format, and one written before `keeps` takes it.
MERGE (h:Head {id: 'journal'})
  ON CREATE SET h.seq = 0, h.hash = $genesis, h.projected = 0, h.format = $format, h.log_id = $log_id,
                h.keeps = $keeps, h.name = 'journal head'
WITH h
FOREACH (x IN CASE WHEN h.format IS NULL AND h.seq = 0 THEN [1] ELSE [] END |
  SET h.format = $format, h.log_id = coalesce(h.log_id, $log_id))
FOREACH (x IN CASE WHEN h.keeps IS NULL AND h.seq = 0 THEN [1] ELSE [] END | SET h.keeps = $keeps)
RETURN h.seq AS seq, h.hash AS hash, h.projected AS projected, h.format AS format, h.log_id AS log_id,
       h.keeps AS keeps
