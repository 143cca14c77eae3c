// A page of the items a filter selects, by id, those whose id sorts after $after ('' for the first page)
// among those whose id key (graph_service.knowledge.items.id_key: the id's first hex digits as a whole
// number, in the ids' order) lies in the window [$from_key, $to_key): at most $limit ids. The filter is
// items_page's. The window is read by the index on Item.id_key, so a page sorts the items in its window,
// not every item (FalkorDB's index cannot bound a range of ids: see items_page);
// graph_service.api.read_pages.item_page_now widens the window until the page is full.
MATCH (i:Item)
WHERE i.id_key >= $from_key AND i.id_key < $to_key
// The id compared by an alias: in the MATCH's WHERE (or after WITH i), FalkorDB reads the range of the
// index on Item.id instead, every item past $after, and the window saves nothing.
WITH i, i.id AS id
WHERE id > $after
  AND ($key IS NULL OR i.key = $key)
  AND ($s IS NULL OR i.s = $s)
  AND ($r IS NULL OR i.r = $r)
  AND ($kinds IS NULL OR i.kind IN $kinds)
  AND ($statuses IS NULL OR i.status IN $statuses)
  AND ($source IS NULL OR i.source = $source)
  AND ($by IS NULL OR i.by = $by)
RETURN id
ORDER BY id
LIMIT $limit
