// The status each of the items $items has now, by its index (an item never written has no row): what the other
// domains ask of an item (graph_service.from_graph.item_statuses).
UNWIND $items AS iid
MATCH (i:Item {id: iid})
RETURN i.id AS id, i.status AS status
