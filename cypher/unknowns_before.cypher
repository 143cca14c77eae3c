// Whether a declared unknown (only an answered ($answered true) or open (false) one unless $answered is
// null) was declared at or before position $after (so precedes a page starting after it): the range read by
// the index on Unknown.declared_at, stopping at the first one found.
MATCH (u:Unknown)
WHERE u.declared_at <= $after AND ($answered IS NULL OR (u.status = 'answered') = $answered)
WITH u
LIMIT 1
RETURN count(u) > 0 AS earlier
