// How many questions there are (only the answered ($answered true) or open (false) ones unless $answered
// is null), and how many of them were asked at or before position $after.
MATCH (q:Question)
WHERE $answered IS NULL OR q.answered = $answered
RETURN count(q) AS total, sum(CASE WHEN q.asked_at <= $after THEN 1 ELSE 0 END) AS before
