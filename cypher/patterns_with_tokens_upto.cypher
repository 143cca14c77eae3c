// The do-not-infer patterns made by position $upto whose proposition has any of the words $tokens (their
// HAS_TOKEN edges to the words' Token nodes), once each, with their records: the candidates of a
// near-match read (beliefs.partial_write). A pattern never changes once made.
UNWIND $tokens AS token
MATCH (:Token {id: token})<-[:HAS_TOKEN]-(p:Pattern)
WITH DISTINCT p
WHERE p.seq <= $upto
RETURN p.id AS id, p.proposition AS proposition, p.seq AS seq, p.by AS by
