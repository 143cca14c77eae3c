// One belief's stored properties (none when no belief has this id).
MATCH (b:Belief {id: $id})
RETURN properties(b) AS belief
