// Every item's fingerprinted properties as the graph holds them (verify compares them with a replay).
MATCH (i:Item)
RETURN i.id AS id, i.status AS status, i.rank AS rank, i.support AS support,
       i.valid_since AS valid_since, i.valid_until AS valid_until
