// How many Belief nodes the graph holds (verify compares it with the beliefs a replay makes; a count store read).
MATCH (b:Belief)
RETURN count(b) AS nodes
