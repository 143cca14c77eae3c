// How many Item nodes the graph holds (verify compares it with the items a replay makes; a count store read).
MATCH (i:Item)
RETURN count(i) AS nodes
