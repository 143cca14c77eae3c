// A page of the items a filter selects, by id, those whose id sorts after $after ('' for the first
// page): at most $limit ids. A null parameter selects every value; $kinds and $statuses select any of
// theirs. The range is read by the index on Item.id: in its order on Neo4j; FalkorDB reads an index
// range in no order and sorts it, and cannot be given windows of ids instead (as the beliefs page is
// given windows of confidence): its index ignores an upper bound on a string given as a parameter
// (FalkorDB issue 2239), so a window would hold more than it says. Scope patterns and staleness are not node
// properties: graph_service.api.read_pages.item_page_now filters on those.
MATCH (i:Item)
WHERE i.id > $after
  AND ($ids IS NULL OR i.id IN $ids)
  AND ($key IS NULL OR i.key = $key)
  AND ($s IS NULL OR i.s = $s)
  AND ($r IS NULL OR i.r = $r)
  AND ($kinds IS NULL OR i.kind IN $kinds)
  AND ($statuses IS NULL OR i.status IN $statuses)
  AND ($source IS NULL OR i.source = $source)
  AND ($by IS NULL OR i.by = $by)
RETURN i.id AS id
ORDER BY i.id
LIMIT $limit
