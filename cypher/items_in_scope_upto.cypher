// The items in the scope entry $scope (the Scope node of one name and value: graph_service.knowledge.state
// .scope_id) by position $upto, by their IN_SCOPE edges (each with the position that wrote it; the caller
// keeps those up to $upto): what a flag over a scope reads.
MATCH (s:Scope {id: $scope})<-[r:IN_SCOPE]-(i:Item)
RETURN i.id AS id, r.since_seq AS since
