// Every belief created by position $upto, with its history up to then (`writes`, kept on its WROTE
// edges): the caller folds each into its state then, for a page of beliefs or the belief fingerprint
// as of that position. One row per belief, each computed from its own node (no grouping over the
// store), so the rows can be taken one at a time. Reads every Belief node, and the writes up to $upto
// of those created by then: the cost grows with the beliefs, never with the entries.
MATCH (b:Belief)
WHERE b.created_seq <= $upto
RETURN b.id AS id,
       [(b)<-[w:WROTE]-(x) WHERE x.seq <= $upto |
         {label: 'Belief', seq: x.seq, op: x.op, by: x.by, at: x.at, changes: w.changes}] AS writes
