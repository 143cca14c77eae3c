// The hash of the entry stored at one position (did an append whose answer was lost land?).
MATCH (e:Entry {seq: $seq})
RETURN e.hash AS hash
