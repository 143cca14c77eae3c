// How many Entry nodes there are (verify compares it with the positions it read).
MATCH (e:Entry)
RETURN count(e) AS entries
