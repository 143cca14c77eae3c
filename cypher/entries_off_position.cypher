// Entry nodes whose position is not a positive number (a string, say): paging by `e.seq > $after`
// cannot see them, so verify asks for them by name.
MATCH (e:Entry)
WHERE coalesce(e.seq >= 1, false) = false
RETURN toString(e.seq) AS seq, e.hash AS hash
LIMIT 20
