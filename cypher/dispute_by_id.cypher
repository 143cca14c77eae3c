// The stored properties of the dispute with this id (graph_service.knowledge.records.dispute_props), by
// the index on Dispute.id.
MATCH (d:Dispute {id: $id})
RETURN properties(d) AS dispute
