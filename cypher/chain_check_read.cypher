// How far a background check last found the journal's chain sound, and the hash of the entry there: a start that
// replays nothing checks on from there when that entry still has that hash (journal.store.BackgroundAudit).
// No row: never checked.
MATCH (c:ChainCheck {id: 'journal'})
RETURN c.seq AS seq, c.hash AS hash
