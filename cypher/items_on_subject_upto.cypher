// The items learned by position $upto whose subject (s) is $subject, with their bodies (the caller keeps
// those whose subject is that text, not a scalar written as it), by the index on the items' subject:
// what a snapshot about a subject reads.
MATCH (i:Item {s: $subject})
WHERE i.learned_at <= $upto
RETURN i.id AS id, i.body AS body
