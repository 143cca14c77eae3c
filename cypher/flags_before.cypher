// Whether a flag (only a pending ($pending true) or ended (false) one unless $pending is null) was raised at
// or before position $after (so precedes a page starting after it): the range read by the index on
// Flag.raised_at, stopping at the first one found.
MATCH (f:Flag)
WHERE f.raised_at <= $after AND ($pending IS NULL OR f.pending = $pending)
WITH f
LIMIT 1
RETURN count(f) > 0 AS earlier
