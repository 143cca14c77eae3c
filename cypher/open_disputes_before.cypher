// Whether an open dispute opened at or before position $after (so precedes a page starting after it): the
// range read by the index on Dispute.opened_at, stopping at the first one found.
MATCH (d:Dispute)
WHERE d.opened_at <= $after AND d.open = true
WITH d
LIMIT 1
RETURN count(d) > 0 AS earlier
