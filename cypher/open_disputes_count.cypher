// How many disputes are open (a dispute page's totalCount: it reads every open dispute, so it is read only
// when asked).
MATCH (d:Dispute)
WHERE d.open = true
RETURN count(d) AS total
