// Whether an item the filter selects (as items_page selects them) sorts at or before the id $after (so
// precedes a page starting after it): the range read by the index on Item.id, stopping at the first one
// found.
MATCH (i:Item)
WHERE i.id <= $after
  AND ($ids IS NULL OR i.id IN $ids)
  AND ($key IS NULL OR i.key = $key)
  AND ($s IS NULL OR i.s = $s)
  AND ($r IS NULL OR i.r = $r)
  AND ($kinds IS NULL OR i.kind IN $kinds)
  AND ($statuses IS NULL OR i.status IN $statuses)
  AND ($source IS NULL OR i.source = $source)
  AND ($by IS NULL OR i.by = $by)
WITH i
LIMIT 1
RETURN count(i) > 0 AS earlier
