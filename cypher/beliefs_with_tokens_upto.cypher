// The beliefs made by position $upto whose proposition has any of the words $tokens (their HAS_TOKEN
// edges to the words' Token nodes), once each, with the proposition their words come from: the
// candidates of a near-match read (beliefs.partial_write). Walked from each word's node.
UNWIND $tokens AS token
MATCH (:Token {id: token})<-[:HAS_TOKEN]-(b:Belief)
WITH DISTINCT b
WHERE b.created_seq <= $upto
RETURN b.id AS id, b.proposition AS proposition
