// One question's stored properties by id (graph_service.questions.as_of.question_record reads them); no
// row for an id never asked.
MATCH (q:Question {id: $id})
RETURN properties(q) AS question
