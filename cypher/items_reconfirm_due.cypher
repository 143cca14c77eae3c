// The ids of the items whose latest live assertion's re-confirmation period has run out by store clock
// $clock (Item.reconfirm_due, indexed): the items the clock made stale, which the open questions ask about.
MATCH (i:Item)
WHERE i.reconfirm_due <= $clock
RETURN i.id AS id
