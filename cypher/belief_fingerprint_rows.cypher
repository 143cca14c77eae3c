// Every belief's status and confidence as the graph holds them (verify compares them with a replay).
MATCH (b:Belief)
RETURN b.id AS id, b.status AS status, b.confidence AS confidence
