// Neo4j: the name and state of every index, each uniqueness constraint's own index included (named as its
// constraint is). A start compares them with what schema_neo4j declares and sets up nothing when every one is
// there and online (graph_service.storage.neo4j_adapter.Neo4jGraph.setup_schema).
SHOW INDEXES YIELD name, state
RETURN name, state
