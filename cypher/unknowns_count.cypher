// How many declared unknowns there are, only the answered ($answered true) or open (false) ones unless
// $answered is null (an unknowns page's totalCount: it reads every unknown it counts, so it is read only
// when asked).
MATCH (u:Unknown)
WHERE $answered IS NULL OR (u.status = 'answered') = $answered
RETURN count(u) AS total
