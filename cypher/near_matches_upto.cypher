// The candidates of the near-match reads of one proposition's words $tokens (beliefs.partial_write), as of
// position $upto, in one statement: the beliefs whose proposition has any of the $probe_beliefs rarest of the
// words (by how many beliefs use each: the count on its Token node; a word no belief uses is the rarest), and the
// do-not-infer patterns whose proposition has any of the $probe_patterns rarest (by how many patterns use each).
// Any that many of the words find every near match (text.probe_size); the rarest read the fewest postings.
// Each once, with the proposition its words come from (and a pattern's record); walked from each word's node.
// The ranked words are collected ([t] keeps a word no node holds) and sliced, not cut with LIMIT: FalkorDB
// applied a WHERE after a LIMIT before it, so a word with no node gave its place to a common one.
UNWIND $tokens AS token
OPTIONAL MATCH (t:Token {id: token})
WITH token, t
ORDER BY coalesce(t.beliefs, 0), token
WITH collect([t]) AS ranked
UNWIND ranked[..$probe_beliefs] AS chosen
WITH chosen[0] AS t
WHERE t IS NOT NULL
MATCH (t)<-[:HAS_TOKEN]-(b:Belief)
WITH DISTINCT b
WHERE b.created_seq <= $upto
RETURN 'Belief' AS label, b.id AS id, b.proposition AS proposition, null AS seq, null AS by
UNION ALL
UNWIND $tokens AS token
OPTIONAL MATCH (t:Token {id: token})
WITH token, t
ORDER BY coalesce(t.patterns, 0), token
WITH collect([t]) AS ranked
UNWIND ranked[..$probe_patterns] AS chosen
WITH chosen[0] AS t
WHERE t IS NOT NULL
MATCH (t)<-[:HAS_TOKEN]-(p:Pattern)
WITH DISTINCT p
WHERE p.seq <= $upto
RETURN 'Pattern' AS label, p.id AS id, p.proposition AS proposition, p.seq AS seq, p.by AS by
