// The position of the last entry that wrote each of the named beliefs (null: none did, or the store was written
// before history was kept), run after `beliefs_counted_now`: Neo4j reads committed data, not one snapshot, and a
// write's new edges are in place before its changed properties, so a belief read as it is now was last written
// where this says, or before. The ids come in a map (`$asked`): one plan whatever their number.
UNWIND $asked.ids AS bid
MATCH (b:Belief {id: bid})
OPTIONAL MATCH (b)<-[:WROTE]-(e)
RETURN b.id AS id, max(e.seq) AS last
