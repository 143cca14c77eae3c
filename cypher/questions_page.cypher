// A page of the questions in the order asked, asked after position $after, only the answered ($answered
// true) or open (false) ones unless $answered is null: at most $limit, each node's stored properties
// (graph_service.questions.as_of.question_record reads them). A question's place is the position it was
// asked at (an entry asks one), so a cursor names the same place on every later read; the range is read
// by the index on Question.asked_at.
MATCH (q:Question)
WHERE q.asked_at > $after AND ($answered IS NULL OR q.answered = $answered)
RETURN properties(q) AS question
ORDER BY q.asked_at
LIMIT $limit
