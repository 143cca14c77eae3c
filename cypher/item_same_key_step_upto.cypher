// Same-key competitors of every item in the frontier as of position $upto, each with the position it
// was first written at (its learned_at; the caller keeps those up to $upto).
UNWIND $frontier AS fid
MATCH (i:Item {id: fid})
WHERE i.key IS NOT NULL
MATCH (c:Item {key: i.key})
WHERE c.id <> i.id
RETURN DISTINCT i.id AS via, c.id AS id, c.learned_at AS since
