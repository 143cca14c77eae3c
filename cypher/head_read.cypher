// The journal head: last position and hash, and the last position projected into the graph.
MATCH (h:Head {id: 'journal'})
RETURN h.seq AS seq, h.hash AS hash, h.projected AS projected
