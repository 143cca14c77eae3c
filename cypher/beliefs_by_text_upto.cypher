// The beliefs made by position $upto that hold each text about each subject ($keys: {text, subject}, the
// duplicate key: the proposition's normalised text, beliefs.planning.duplicate_key; a null subject matches
// beliefs about none), by the index on Belief.text_key. Whether one was superseded then is its history's
// to say; the caller reads it with the belief.
UNWIND $keys AS key
MATCH (b:Belief {text_key: key.text})
WITH key, b
WHERE b.created_seq <= $upto AND ((key.subject IS NULL AND b.subject IS NULL) OR b.subject = key.subject)
RETURN key.text AS text, key.subject AS subject, b.id AS id
