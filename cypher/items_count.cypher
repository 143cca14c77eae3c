// How many items a filter selects, as items_page selects them (an items page's totalCount: it reads every
// item it counts, so it is read only when asked).
MATCH (i:Item)
WHERE ($ids IS NULL OR i.id IN $ids)
  AND ($key IS NULL OR i.key = $key)
  AND ($s IS NULL OR i.s = $s)
  AND ($r IS NULL OR i.r = $r)
  AND ($kinds IS NULL OR i.kind IN $kinds)
  AND ($statuses IS NULL OR i.status IN $statuses)
  AND ($source IS NULL OR i.source = $source)
  AND ($by IS NULL OR i.by = $by)
RETURN count(i) AS total
