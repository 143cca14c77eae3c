// FalkorDB: every index with its state, to wait until all are operational before loading data.
CALL db.indexes() YIELD label, status
RETURN label, status
