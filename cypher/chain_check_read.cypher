// How far a background check last found the journal's chain sound, the hash of the entry there as that check saw
// it, and the hash stored there now: a start that replays nothing checks on from there when the two agree
// (journal.background_audit). No row: never checked.
MATCH (c:ChainCheck {id: 'journal'})
OPTIONAL MATCH (e:Entry {seq: c.seq})
RETURN c.seq AS seq, c.hash AS hash, e.hash AS stored
