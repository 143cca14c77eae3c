// How many items a filter selects (as items_page selects them), and how many of those sort at or
// before the id $after.
MATCH (i:Item)
WHERE ($ids IS NULL OR i.id IN $ids)
  AND ($key IS NULL OR i.key = $key)
  AND ($s IS NULL OR i.s = $s)
  AND ($r IS NULL OR i.r = $r)
  AND ($kinds IS NULL OR i.kind IN $kinds)
  AND ($statuses IS NULL OR i.status IN $statuses)
  AND ($source IS NULL OR i.source = $source)
  AND ($by IS NULL OR i.by = $by)
RETURN count(i) AS total, sum(CASE WHEN i.id <= $after THEN 1 ELSE 0 END) AS before
