// How many flags there are, only the pending ($pending true) or ended (false) ones unless $pending is null
// (a flags page's totalCount: it reads every flag it counts, so it is read only when asked).
MATCH (f:Flag)
WHERE $pending IS NULL OR f.pending = $pending
RETURN count(f) AS total
