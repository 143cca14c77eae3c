// Whether a question (only an answered ($answered true) or open (false) one unless $answered is null) was
// asked at or before position $after (so precedes a page starting after it): the range read by the index on
// Question.asked_at, stopping at the first one found.
MATCH (q:Question)
WHERE q.asked_at <= $after AND ($answered IS NULL OR q.answered = $answered)
WITH q
LIMIT 1
RETURN count(q) > 0 AS earlier
