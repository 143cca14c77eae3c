// How many flags there are (only the pending ($pending true) or ended (false) ones unless $pending is
// null), and how many of them were raised at or before position $after (the ones that precede a page
// starting after it).
MATCH (f:Flag)
WHERE $pending IS NULL OR f.pending = $pending
RETURN count(f) AS total, sum(CASE WHEN f.raised_at <= $after THEN 1 ELSE 0 END) AS before
