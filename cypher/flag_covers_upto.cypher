// Every flag's COVERS edges with the position that first wrote each (since_seq; null for an edge
// written before history was kept): the caller keeps those written by $upto and refuses a null.
MATCH (f:Flag)
WITH f
MATCH (f)-[c:COVERS]->(i:Item)
WHERE c.since_seq IS NULL OR c.since_seq <= $upto
RETURN f.id AS flag, i.id AS item, c.since_seq AS since_seq
