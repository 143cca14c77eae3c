// The entry a keyed write stored (its Idempotency-Key's digest), the request it came with and the
// answer its client got, once kept.
MATCH (e:Entry)
  WHERE e.idem = $key
RETURN e.seq AS seq, e.idem_request AS request, e.idem_answer AS answer
