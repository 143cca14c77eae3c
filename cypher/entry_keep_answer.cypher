// Keep the answer a keyed write's client got on the entry it wrote (a retry gets the same answer).
MATCH (e:Entry {seq: $seq})
  WHERE e.idem = $key
SET e.idem_answer = $answer
RETURN e.seq AS seq
