// The benchmarks' baseline: the smallest write a client can make, one node merged and one property
// set, with no journal around it (benchmarks/service_shape.py sets the service's writes beside it).
MERGE (n:BenchProbe {id: $id})
SET n.at = $at
RETURN n.id AS id
