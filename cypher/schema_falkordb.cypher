// Range indexes for the embedded FalkorDB (its constraints are a Redis command, see the adapter).
CREATE INDEX FOR (n:Head) ON (n.id);
CREATE INDEX FOR (n:Entry) ON (n.seq);
CREATE INDEX FOR (n:Entry) ON (n.idem);
CREATE INDEX FOR (n:Item) ON (n.id);
CREATE INDEX FOR (n:Dispute) ON (n.id);
CREATE INDEX FOR (n:Flag) ON (n.id);
CREATE INDEX FOR (n:Snapshot) ON (n.id);
CREATE INDEX FOR (n:Question) ON (n.id);
CREATE INDEX FOR (n:Unknown) ON (n.id);
CREATE INDEX FOR (n:Belief) ON (n.id);
CREATE INDEX FOR (n:BeliefVersion) ON (n.id);
CREATE INDEX FOR (n:Evidence) ON (n.id);
CREATE INDEX FOR (n:Family) ON (n.id);
CREATE INDEX FOR (n:Actor) ON (n.id);
CREATE INDEX FOR (n:Observation) ON (n.id);
CREATE INDEX FOR (n:Assertion) ON (n.id);
CREATE INDEX FOR (n:Item) ON (n.key);
