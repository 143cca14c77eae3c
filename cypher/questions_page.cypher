// A page of the questions in the order asked, among those asked at a position in the window [$from_key,
// $to_key), only the answered ($answered true) or open (false) ones unless $answered is null: at most $limit,
// each node's stored properties (graph_service.questions.as_of.question_record reads them). A question's place
// is the position it was asked at (an entry asks one), so a cursor names the same place on every later read.
// The window is read by the index on Question.asked_at, so a page sorts the questions in its window, not every
// one past the cursor (graph_service.key_windows.rows_by_place widens the window until the page is full).
MATCH (q:Question)
WHERE q.asked_at >= $from_key AND q.asked_at < $to_key AND ($answered IS NULL OR q.answered = $answered)
RETURN properties(q) AS question
ORDER BY q.asked_at
LIMIT $limit
