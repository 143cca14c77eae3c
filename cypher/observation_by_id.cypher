// One observation's stored properties (a stream row or a message).
MATCH (o:Observation {id: $id})
RETURN properties(o) AS observation
