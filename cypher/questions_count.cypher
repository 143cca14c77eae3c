// How many questions there are, only the answered ($answered true) or open (false) ones unless $answered
// is null (a questions page's totalCount: it reads every question it counts, so it is read only when asked).
MATCH (q:Question)
WHERE $answered IS NULL OR q.answered = $answered
RETURN count(q) AS total
