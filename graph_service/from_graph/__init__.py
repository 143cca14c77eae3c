"""What the pure rules read, read from the graph: each domain's parts as the graph holds them, so that a service
holding no copy of the store plans, applies and reads by touching only what a write or a read needs
(docs/stateless-path.md). The storage adapters run the statements; the rules stay in the domain packages."""
