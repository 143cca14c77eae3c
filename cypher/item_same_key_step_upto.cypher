// Same-key competitors of every item in the frontier as of position $upto, each with the position it
// was first written at (its learned_at; the caller keeps those up to $upto).
// The key is bound first (`WITH`): FalkorDB scans every Item for `{key: i.key}` written in place,
// and looks `{key: k}` up in the key's index.
UNWIND $asked.frontier AS fid
MATCH (i:Item {id: fid})
WHERE i.key IS NOT NULL
WITH i, i.key AS k
MATCH (c:Item {key: k})
WHERE c.id <> i.id
RETURN DISTINCT i.id AS via, c.id AS id, c.learned_at AS since
