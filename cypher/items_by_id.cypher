// The stored properties of the items named.
UNWIND $ids AS iid
MATCH (i:Item {id: iid})
RETURN properties(i) AS item
ORDER BY i.id
