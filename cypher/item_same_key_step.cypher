// Same-key competitors of every item in the frontier (one value per (scope, s, r) at a time).
UNWIND $frontier AS fid
MATCH (i:Item {id: fid})
WHERE i.key IS NOT NULL
MATCH (c:Item {key: i.key})
WHERE c.id <> i.id
RETURN DISTINCT i.id AS via, c.id AS id
