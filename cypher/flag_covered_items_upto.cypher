// The items the flags $flags covered at position $upto (COVERS edges written by then; a null since_seq,
// from before history was kept, is returned for the caller to refuse): where ending a flag starts its
// knowledge region.
UNWIND $flags AS fid
MATCH (f:Flag {id: fid})-[c:COVERS]->(i:Item)
WHERE c.since_seq IS NULL OR c.since_seq <= $upto
RETURN f.id AS flag, i.id AS item, c.since_seq AS since_seq
