// The candidates of near-match reads (beliefs.partial_write), as of position $upto, for each of $reads: {at: its
// place in the list, tokens: one proposition's words, probe_beliefs, probe_patterns}, in one statement: the
// beliefs whose proposition has any of the `probe_beliefs` rarest of the words (by how many beliefs use each: the
// count on its Token node; a word no belief uses is the rarest), and the do-not-infer patterns whose proposition
// has any of the `probe_patterns` rarest (by how many patterns use each). Any that many of the words find every
// near match (text.probe_size); the rarest read the fewest postings. Each once a read, with the proposition its
// words come from (and a pattern's record); walked from each word's node. The ranked words are collected ([t]
// keeps a word no node holds) and sliced, not cut with LIMIT: FalkorDB applied a WHERE after a LIMIT before it,
// so a word with no node gave its place to a common one. A bulk load reads a window's propositions at once.
UNWIND $reads AS read
UNWIND read.tokens AS token
OPTIONAL MATCH (t:Token {id: token})
WITH read.at AS at, read.probe_beliefs AS probe, token, t
ORDER BY at, coalesce(t.beliefs, 0), token
WITH at, probe, collect([t]) AS ranked
UNWIND ranked[..probe] AS chosen
WITH at, chosen[0] AS t
WHERE t IS NOT NULL
MATCH (t)<-[:HAS_TOKEN]-(b:Belief)
WITH DISTINCT at, b
WHERE b.created_seq <= $upto
RETURN at, 'Belief' AS label, b.id AS id, b.proposition AS proposition, null AS seq, null AS by
UNION ALL
UNWIND $reads AS read
UNWIND read.tokens AS token
OPTIONAL MATCH (t:Token {id: token})
WITH read.at AS at, read.probe_patterns AS probe, token, t
ORDER BY at, coalesce(t.patterns, 0), token
WITH at, probe, collect([t]) AS ranked
UNWIND ranked[..probe] AS chosen
WITH at, chosen[0] AS t
WHERE t IS NOT NULL
MATCH (t)<-[:HAS_TOKEN]-(p:Pattern)
WITH DISTINCT at, p
WHERE p.seq <= $upto
RETURN at, 'Pattern' AS label, p.id AS id, p.proposition AS proposition, p.seq AS seq, p.by AS by
