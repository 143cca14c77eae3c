// The beliefs made by position $upto about each of the subjects $subjects, by the index on Belief.subject
// (a belief's subject never changes).
UNWIND $subjects AS subject
MATCH (b:Belief {subject: subject})
WITH subject, b
WHERE b.created_seq <= $upto
RETURN subject, b.id AS id
