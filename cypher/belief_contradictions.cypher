// The contradiction links of each named belief, either way: the other belief, the end the link was made
// from (`a`), how it was made, whether it is active, and the position that first wrote it. Two directed
// matches, so each link is read once from each end it is asked from.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})-[c:CONTRADICTS]->(p:Belief)
RETURN b.id AS belief, p.id AS partner, b.id AS a, c.how AS how, c.active AS active, c.since_seq AS since
UNION ALL
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})<-[c:CONTRADICTS]-(p:Belief)
RETURN b.id AS belief, p.id AS partner, p.id AS a, c.how AS how, c.active AS active, c.since_seq AS since
