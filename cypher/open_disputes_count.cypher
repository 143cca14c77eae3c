// How many disputes are open, and how many of them opened at or before position $after (the ones that
// precede a page starting after it).
MATCH (d:Dispute)
WHERE d.open = true
RETURN count(d) AS total, sum(CASE WHEN d.opened_at <= $after THEN 1 ELSE 0 END) AS before
