// Which of the roots $ids (InaccurateRoot ids: kind:id) an operator had marked inaccurate by position
// $upto. A mark is never taken back.
UNWIND $ids AS rid
MATCH (r:InaccurateRoot {id: rid})
WITH r
WHERE r.seq <= $upto
RETURN r.id AS id
