// How many declared unknowns there are (only the answered ($answered true) or open (false) ones unless
// $answered is null), and how many of them were declared at or before position $after.
MATCH (u:Unknown)
WHERE $answered IS NULL OR (u.status = 'answered') = $answered
RETURN count(u) AS total, sum(CASE WHEN u.declared_at <= $after THEN 1 ELSE 0 END) AS before
