// Every item written by position $upto, with its history up to then (`writes`, kept on its WROTE
// edges): the caller folds each into its properties then, for the knowledge fingerprint as of that
// position (a sum over the items, in any order). One row per item, each computed from its own node
// (no grouping over the store), so the rows can be taken one at a time. Whole-store by nature, like
// verify: every Item node, and its writes up to $upto.
MATCH (i:Item)
WITH i, [(i)<-[w:WROTE]-(x) WHERE x.seq <= $upto |
         {label: 'Item', seq: x.seq, op: x.op, by: x.by, at: x.at, changes: w.changes}] AS writes
WHERE size(writes) > 0
RETURN i.id AS id, writes
