"""What an applied journal entry changes in the graph, as plain data (no driver, no Cypher).

The pure domain cores return a `Projection`; the storage adapter writes it with one statement.
Labels and relationship types cannot be Cypher parameters, so `cypher/project_entries.cypher` has
one clause per allowed label and per allowed (type, source label, target label); `NODE_LABELS` and
`EDGE_KINDS` are that allow-list and anything else is refused here, before any query runs.
`PROJECTION_PARTS` are smaller statements of the same form over a subset of the clauses (see
`projection_statement`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_service.journal.chain import canonical_json

# The version of what the graph keeps for writes beside what the store knows: the Unit, Due, Fingerprint and
# Scope nodes and each entry's clock (graph_service.state.StoreState._kept_for_writes, journal/clock.py). A
# store's head records the version it has kept since its first entry; a reader refuses a store older than
# what it reads: the knowledge store's reads need version 1; version 2 adds what reads now read in place of
# the in-memory state: the `beliefs` Fingerprint node (fingerprint), Item.reconfirm_due (open questions) and
# Item.id_key (a page of items by windows of id keys).
# Version 3 adds what a belief write reads besides the records (graph_service.beliefs.partial_write): Belief.text_key,
# the Token nodes and HAS_TOKEN edges of beliefs and do-not-infer patterns, the Pattern, InaccurateRoot and
# Subject nodes.
# Version 4 adds what a stream or statement write reads (graph_service.from_graph.stream): an observer's `declared`,
# `view` and `boundary_tick` on its Actor node, `first_of` on the Observation node of its first row of a pair, and
# the Conversation nodes (who spoke last to whom).
# Version 5 adds the Tally nodes (how many live rows of a belief hold each value; beliefs.projecting), which a belief
# read as it is now reads in place of counting its rows (cypher/beliefs_counted_now.cypher).
KEPT_FOR_WRITES = 5
KEEPS_KNOWLEDGE = 1
KEEPS_NOW_READS = 2
KEEPS_BELIEF_WRITES = 3
KEEPS_STREAM_WRITES = 4
KEEPS_BELIEF_TALLIES = 5

NODE_LABELS: tuple[str, ...] = (
    "Item",
    "Dispute",
    "Flag",
    "Snapshot",
    "Question",
    "Unknown",
    "Belief",
    "BeliefVersion",
    "Evidence",
    "Family",
    "Actor",
    "Observation",
    "Assertion",
    "Unit",
    "Due",
    "Fingerprint",
    "Scope",
    "Token",
    "Pattern",
    "InaccurateRoot",
    "Subject",
    "Conversation",
    "Tally",
)

UNCHANGING_LABELS = frozenset({"Token"})
"""Labels whose nodes never change once made (a word): no history is kept for them (statement_params), as a
word's node would otherwise gain a WROTE edge from every entry that used it."""

TOKEN_COUNTS = {"Belief": "beliefs", "Pattern": "patterns"}
"""The property of a Token node that counts the HAS_TOKEN edges into it from each label: how many beliefs (and
patterns) use the word, which a near-match read orders its words by, rarest first (cypher/near_matches_upto.cypher).
The statement keeps the counts: the edge clause adds one when its MERGE creates the edge, so writing a projection
the graph holds already (a projected marker set back) counts nothing twice. No entry sets them, so no state needs
them; verify counts the edges as the statement does (projected_graph)."""

EDGE_KINDS: tuple[tuple[str, str, str], ...] = (
    ("DERIVED_FROM", "Item", "Item"),
    ("SUPERSEDES", "Item", "Item"),
    ("ABOUT", "Dispute", "Item"),
    ("COVERS", "Flag", "Item"),
    ("READ", "Snapshot", "Item"),
    ("ASKS_ABOUT", "Question", "Dispute"),
    ("ASKS_ABOUT", "Question", "Item"),
    ("ASKS_ABOUT", "Question", "Unknown"),
    ("AFFECTS", "Unknown", "Item"),
    ("AFFECTS", "Unknown", "Snapshot"),
    ("BEARS_ON", "Evidence", "Belief"),
    ("FROM", "Evidence", "Family"),
    ("ROOTED_IN", "Evidence", "Observation"),
    ("ROOTED_IN", "Evidence", "Item"),
    ("ROOTED_IN", "Evidence", "Belief"),
    ("REPRESENTS", "Family", "Actor"),
    ("CONTRADICTS", "Belief", "Belief"),
    ("SUPPORTS", "Belief", "Belief"),
    ("ALTERNATIVE_TO", "Belief", "Belief"),
    ("DERIVED_FROM", "Belief", "Belief"),
    ("VERSION_OF", "BeliefVersion", "Belief"),
    ("INTERPRETS", "Assertion", "Observation"),
    ("ATTRIBUTED_TO", "Assertion", "Actor"),
    ("YIELDED", "Assertion", "Evidence"),
    ("OBSERVED_BY", "Observation", "Actor"),
    ("SAME_AS", "Actor", "Actor"),
    ("IN_SCOPE", "Item", "Scope"),
    ("HAS_TOKEN", "Belief", "Token"),
    ("HAS_TOKEN", "Pattern", "Token"),
    ("TALLIES", "Tally", "Belief"),
)


# Statements of project_entries' form over subsets of its clauses, smallest first; a write runs the
# smallest one that holds every clause its projection uses (`projection_statement`). Why: FalkorDB's
# cost of a statement grows with its clauses even when their lists are empty (about 40 µs each,
# measured: 41 clauses 1.6 ms of server time for a note that writes nothing, 3 clauses 0.1 ms), and
# the append-only file logs each statement's whole text. The subsets follow what the domains' writes
# project together (counted over the benchmark's realistic mix). tools/gen_project_entry_cypher.py
# writes one cypher/ file per part.
PROJECTION_PARTS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]] = {
    "project_marker": ((), ()),
    "project_observations": (("Observation", "Actor"), (("OBSERVED_BY", "Observation", "Actor"),)),
    "project_items": (
        ("Item", "Dispute", "Flag", "Snapshot", "Unit", "Due", "Fingerprint", "Scope"),
        (("DERIVED_FROM", "Item", "Item"), ("SUPERSEDES", "Item", "Item"), ("ABOUT", "Dispute", "Item"),
         ("COVERS", "Flag", "Item"), ("READ", "Snapshot", "Item"), ("IN_SCOPE", "Item", "Scope")),
    ),
    "project_statements": (
        ("Observation", "Assertion", "Actor", "Belief", "BeliefVersion", "Evidence", "Family", "Fingerprint",
         "Token", "Conversation", "Tally"),
        (("INTERPRETS", "Assertion", "Observation"), ("ATTRIBUTED_TO", "Assertion", "Actor"),
         ("YIELDED", "Assertion", "Evidence"), ("OBSERVED_BY", "Observation", "Actor"),
         ("BEARS_ON", "Evidence", "Belief"), ("FROM", "Evidence", "Family"),
         ("ROOTED_IN", "Evidence", "Observation"), ("REPRESENTS", "Family", "Actor"),
         ("VERSION_OF", "BeliefVersion", "Belief"), ("SAME_AS", "Actor", "Actor"), ("HAS_TOKEN", "Belief", "Token"),
         ("TALLIES", "Tally", "Belief")),
    ),
    "project_beliefs": (
        ("Item", "Dispute", "Unit", "Due", "Fingerprint", "Belief", "BeliefVersion", "Evidence", "Family", "Actor",
         "Token", "Pattern", "InaccurateRoot", "Subject", "Tally"),
        (("DERIVED_FROM", "Item", "Item"), ("ABOUT", "Dispute", "Item"), ("BEARS_ON", "Evidence", "Belief"),
         ("FROM", "Evidence", "Family"), ("ROOTED_IN", "Evidence", "Observation"),
         ("ROOTED_IN", "Evidence", "Item"), ("ROOTED_IN", "Evidence", "Belief"), ("REPRESENTS", "Family", "Actor"),
         ("CONTRADICTS", "Belief", "Belief"), ("SUPPORTS", "Belief", "Belief"),
         ("ALTERNATIVE_TO", "Belief", "Belief"), ("DERIVED_FROM", "Belief", "Belief"),
         ("VERSION_OF", "BeliefVersion", "Belief"), ("SAME_AS", "Actor", "Actor"),
         ("HAS_TOKEN", "Belief", "Token"), ("HAS_TOKEN", "Pattern", "Token"), ("TALLIES", "Tally", "Belief")),
    ),
}


def node_param(label: str) -> str:
    """The list in the statement's `lists` parameter that carries the upserts of one label."""
    return f"n_{label}"


def edge_param(kind: tuple[str, str, str]) -> str:
    """The list in the statement's `lists` parameter that carries the edges of one (type, source label,
    target label)."""
    rel, src, dst = kind
    return f"e_{rel}_{src}_{dst}"


def _check_props(props: dict[str, Any], where: str) -> None:
    # Map-valued properties fail at run time on both backends (SPEC 1.1): refuse them here.
    for name, value in props.items():
        if isinstance(value, dict):
            raise ValueError(f"{where}: property {name!r} is a map; store scalars or lists of scalars")
        if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
            raise ValueError(f"{where}: property {name!r} must be a list of scalars")


CAPTION_LENGTH = 60


def _number(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


# What Neo4j Browser shows on a node (its `name`): built from these properties when an upsert
# carries all of them, so a partial update (a status change) never replaces a good caption.
CAPTIONS: dict[str, tuple[tuple[str, ...], Any]] = {
    "Item": (("summary",), lambda p: p["summary"]),
    "Dispute": (("question",), lambda p: p["question"]),
    "Flag": (("why",), lambda p: f"flag: {p['why']}"),
    "Snapshot": (("position", "facts"), lambda p: f"snapshot at {p['position']}: {len(p['facts'])} facts"),
    "Question": (("text",), lambda p: p["text"]),
    "Unknown": (("text",), lambda p: p["text"]),
    "Belief": (("proposition",), lambda p: p["proposition"]),
    "BeliefVersion": (("version", "status", "confidence"),
                      lambda p: f"v{p['version']} {p['status']} {_number(p['confidence'])}"),
    "Evidence": (("direction", "value", "derivation"),
                 lambda p: f"{p['direction']} {_number(p['value'])} ({p['derivation']})"),
    "Observation": (("kind",), lambda p: " ".join(str(p[k]) for k in ("kind", "speaker", "subject", "text")
                                                   if p.get(k) is not None)),
    "Assertion": (("claim",), lambda p: p["claim"]),
    "Due": (("expires", "item"), lambda p: f"runs out at clock {p['expires']}: {p['item']}"),
    "Fingerprint": (("count",), lambda p: f"what {p['count']} present items say, summed"),
    "Pattern": (("proposition",), lambda p: f"do not infer: {p['proposition']}"),
    "InaccurateRoot": (("root_kind", "root_id"), lambda p: f"inaccurate: {p['root_kind']} {p['root_id']}"),
    "Tally": (("rows", "direction", "family"),
              lambda p: f"{p['rows']} live rows ({p['direction']}) from {p['family']}"),
}


def caption(label: str, id: str, props: dict[str, Any]) -> str | None:
    """The node's `name` for these properties, or None when they do not say (keep the one it has)."""
    if "name" in props:
        return None
    if label in ("Actor", "Token", "Conversation"):
        return id
    if label == "Subject":  # a subject an operator's merge or split moved
        return f"{id}: entity {props['entity']}" if props.get("entity") is not None else None
    if label == "Unit":  # a key's items ('k:' + key) or a keyless item ('i:' + id), decided together
        text = f"decided together: {id[2:]}"
        return text if len(text) <= CAPTION_LENGTH else text[: CAPTION_LENGTH - 1] + "…"
    needed, make = CAPTIONS.get(label, ((), None))
    if make is None or not all(props.get(k) is not None for k in needed):
        return None
    text = str(make(props))
    return text if len(text) <= CAPTION_LENGTH else text[: CAPTION_LENGTH - 1] + "…"


@dataclass(frozen=True, slots=True)
class NodeUpsert:
    """Create the node (label, id) if missing and set these properties on it (None removes one),
    with a `name` caption where the properties give one (see CAPTIONS)."""

    label: str
    id: str
    props: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.label not in NODE_LABELS:
            raise ValueError(f"label {self.label!r} is not one of the graph's labels")
        _check_props(self.props, f"{self.label} {self.id}")
        name = caption(self.label, self.id, self.props)
        if name is not None:  # a new dict: the caller's (often a record's cached props) stays as it was
            object.__setattr__(self, "props", {**self.props, "name": name})


@dataclass(frozen=True, slots=True)
class EdgeMerge:
    """Create the relationship (src)-[rel]->(dst) if missing, creating either end if missing."""

    rel: str
    src_label: str
    src: str
    dst_label: str
    dst: str
    props: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in EDGE_KINDS:
            raise ValueError(f"relationship {self.kind} is not one of the graph's relationships")
        _check_props(self.props, f"{self.rel} {self.src}->{self.dst}")

    @property
    def kind(self) -> tuple[str, str, str]:
        return (self.rel, self.src_label, self.dst_label)


@dataclass(slots=True)
class Projection:
    """Everything one journal entry changes in the graph."""

    nodes: list[NodeUpsert] = field(default_factory=list)
    edges: list[EdgeMerge] = field(default_factory=list)

    def node(self, label: str, id: str, **props: Any) -> None:
        self.nodes.append(NodeUpsert(label, id, props))

    def edge(self, rel: str, src_label: str, src: str, dst_label: str, dst: str, **props: Any) -> None:
        self.edges.append(EdgeMerge(rel, src_label, src, dst_label, dst, props))

    def extend(self, other: Projection) -> None:
        self.nodes.extend(other.nodes)
        self.edges.extend(other.edges)

    def as_params(self, seq: int = 0) -> dict[str, Any]:
        """This projection alone as `project_entries` parameters (written by entry `seq`)."""
        return statement_params([(seq, self)])



def statement_params(projections: list[tuple[int, Projection]]) -> dict[str, Any]:
    """The parameters of `project_entries` for consecutive entries' projections, in journal order:
    `first`, `last` and `lists`, one map holding a list per allowed label and edge kind (`node_param`,
    `edge_param`; empty lists where unused).

    One map rather than a parameter per list: Neo4j 5 keys its plan cache on the parameters' types and, for
    a list, on its size class (measured on 5.26: an empty list becoming non-empty, or 1 row becoming 3 or 50,
    planned the statement again), so a batch whose lists differed in size from every earlier one planned
    project_entries' 41 clauses anew, 2 to 5 s of server processor time each: most of a bulk load's cost
    (benchmarks/neo4j_bulk_profile.py). A map parameter is one type whatever it holds.

    Upserts of one node are folded into one, later properties over earlier: FalkorDB keeps only the first
    of several SETs on one node within one statement, so the statement must never see a node twice. The
    node's `writes` keep what each entry changed on it, in order ({seq, changes}: the properties that entry
    set, as canonical JSON, a removed one as null): the node's history, stored on its WROTE edges (see
    graph_service.history). Edges are folded the same way; `seq` is the first entry that wrote one.
    """
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    edges: dict[tuple[tuple[str, str, str], str, str], dict[str, Any]] = {}
    changes: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for seq, projection in projections:
        for n in projection.nodes:
            nodes.setdefault((n.label, n.id), {"id": n.id, "writes": [], "props": {}})["props"].update(n.props)
            changes.setdefault((n.label, n.id), {}).setdefault(seq, {}).update(n.props)
        for e in projection.edges:
            edge = edges.setdefault((e.kind, e.src, e.dst), {"src": e.src, "dst": e.dst, "seq": seq, "props": {}})
            edge["props"].update(e.props)
    lists: dict[str, list[dict[str, Any]]] = {node_param(label): [] for label in NODE_LABELS}
    lists.update({edge_param(kind): [] for kind in EDGE_KINDS})
    for (label, node_id), row in nodes.items():
        row["writes"] = [] if label in UNCHANGING_LABELS else [
            {"seq": s, "changes": canonical_json(c)} for s, c in changes[(label, node_id)].items()]
        lists[node_param(label)].append(_removals_apart(row))
    for (kind, _, _), row in edges.items():
        lists[edge_param(kind)].append(_removals_apart(row))
    return {"first": projections[0][0], "last": projections[-1][0], "lists": lists}


def _removals_apart(row: dict[str, Any]) -> dict[str, Any]:
    """The row with its removals (properties set to None) moved from `props` to `gone`, one {name: None}
    map each, so that the statement removes each with a SET of its own. Why: FalkorDB 4.16 (before
    4.20.1; FalkorDB issue #1787) applies the removals of one SET at slot positions that its own earlier
    removals moved, so `SET n += {a: null, b: null, c: 1}` could remove another property and keep one
    meant to go (215 of 2,000 random updates here; an item kept its `expires_at` and lost its `name`)."""
    props = row["props"]
    row["gone"] = [{name: None} for name, value in props.items() if value is None]
    row["props"] = {name: value for name, value in props.items() if value is not None}
    return row


def part_params(part: str) -> tuple[str, ...]:
    """The lists in `lists` of one statement of `PROJECTION_PARTS` (or of the whole, `project_entries`)."""
    if part == "project_entries":
        labels, kinds = NODE_LABELS, EDGE_KINDS
    else:
        labels, kinds = PROJECTION_PARTS[part]
    return tuple(node_param(label) for label in labels) + tuple(edge_param(kind) for kind in kinds)


def projection_statement(projections: list[tuple[int, Projection]]) -> tuple[str, dict[str, Any]]:
    """The named statement that writes these consecutive entries' projections, and its parameters:
    the smallest of `PROJECTION_PARTS` holding every clause they use, else `project_entries`. A part
    with no clauses (`project_marker`) takes no `lists`."""
    params = statement_params(projections)
    used = {name for name, value in params["lists"].items() if value}
    part = next((p for p in PROJECTION_PARTS if used <= set(part_params(p))), "project_entries")
    chosen: dict[str, Any] = {"first": params["first"], "last": params["last"]}
    if part_params(part):
        chosen["lists"] = {name: params["lists"][name] for name in part_params(part)}
    return part, chosen
