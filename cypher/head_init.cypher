// The journal head: the compare-and-set anchor of appends (hash, seq) and of projection (projected).
MERGE (h:Head {id: 'journal'})
  ON CREATE SET h.seq = 0, h.hash = $genesis, h.projected = 0
RETURN h.seq AS seq, h.hash AS hash, h.projected AS projected
