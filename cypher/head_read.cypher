// The journal head: last position and hash, the last position projected into the graph, the
// journal's format and its log id.
MATCH (h:Head {id: 'journal'})
RETURN h.seq AS seq, h.hash AS hash, h.projected AS projected, h.format AS format, h.log_id AS log_id
