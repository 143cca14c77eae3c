// Neo4j: block until every index is online (seconds).
CALL db.awaitIndexes(300)
