"""GraphQL reads of the belief layer: beliefs from the graph (evidence, families, versions, breakdown,
the assertions behind them) and walks over what they rest on. Writes are in belief_mutations.py."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

import strawberry

from graph_service.api.context import caught_up, service_of
from graph_service.api.errors import user_errors
from graph_service.api.journal_types import PageInfo, page_size
from graph_service.api.node import Node
from graph_service.api.scalars import Long
from graph_service.api.statement_types import Assertion
from graph_service.api.vocabularies import BeliefStatus, EpistemicKind, plain
from graph_service.errors import NotFound, UserError
from graph_service.service import Service
from graph_service.storage.walks import walk

MAX_WALK_DEPTH = 100
_CURSOR_PREFIX = "belief:"
_ID_NUMBERS = re.compile(r"\d+")


# ---- read types --------------------------------------------------------------------------------


@strawberry.type(description="What one source family adds on one side of a belief.")
class FamilyContribution:
    family: str
    direction: str
    contribution: float
    strongest: float = strawberry.field(description="Its strongest row's value (weight × credibility).")
    primary_rows: int
    derived_rows: int
    basis: str = strawberry.field(description="primary, or derived when the family has no primary row.")
    capped: bool = strawberry.field(description="Repetition reached 1.5 × the strongest row.")

    @classmethod
    def of(cls, raw: dict[str, Any]) -> FamilyContribution:
        return cls(family=raw["family"], direction=raw["direction"], contribution=raw["contribution"],
                   strongest=raw["strongest"], primary_rows=raw["primary_rows"], derived_rows=raw["derived_rows"],
                   basis=raw["basis"], capped=raw["capped"])


@strawberry.type(description="How a confidence came about: prior, families, totals, diversity and the formula.")
class Breakdown:
    epistemic_kind: str
    prior: float
    families: list[FamilyContribution]
    support: float = strawberry.field(name="for", description="Σ contribution over supporting families.")
    against: float
    supporting_families: int
    opposing_families: int
    diversity: float
    log_odds: float
    confidence: float
    formula: str
    notes: list[str]

    @classmethod
    def of(cls, text: str) -> Breakdown:
        raw = json.loads(text)
        return cls(epistemic_kind=raw["epistemic_kind"], prior=raw["prior"],
                   families=[FamilyContribution.of(f) for f in raw["families"]], support=raw["for"],
                   against=raw["against"], supporting_families=raw["supporting_families"],
                   opposing_families=raw["opposing_families"], diversity=raw["diversity"],
                   log_odds=raw["log_odds"], confidence=raw["confidence"], formula=raw["formula"],
                   notes=list(raw["notes"]))


@strawberry.type(description="A node an evidence row rests on.")
class EvidenceRoot:
    id: str
    label: str = strawberry.field(description="Observation, Item or Belief.")


@strawberry.type(description="One piece of evidence bearing on one belief.")
class Evidence(Node):
    id: strawberry.ID
    belief: str
    direction: str
    weight: float
    credibility: float
    value: float = strawberry.field(description="weight × credibility.")
    derivation: str
    family: str
    provenance_status: str
    root_kind: str | None
    root_ids: list[str]
    roots: list[EvidenceRoot] = strawberry.field(description="The graph nodes it is rooted in.")
    origin: str
    actor: str | None
    note: str | None
    retracted: bool
    retracted_seq: int | None
    retract_reason: str | None
    created_seq: int
    assertions: list[str] = strawberry.field(description="The assertions that yielded it (statements).")

    @classmethod
    def of(cls, props: dict[str, Any], roots: list[dict[str, Any]], assertions: list[str]) -> Evidence:
        return cls(
            id=props["id"], belief=props["belief"], direction=props["direction"], weight=props["weight"],
            credibility=props["credibility"], value=props["value"], derivation=props["derivation"],
            family=props["family"], provenance_status=props["provenance_status"], root_kind=props.get("root_kind"),
            root_ids=list(props.get("root_ids") or []),
            roots=[EvidenceRoot(id=r["id"], label=r["label"]) for r in sorted(roots, key=lambda r: r["id"])],
            origin=props["origin"], actor=props.get("actor"), note=props.get("note"),
            retracted=bool(props.get("retracted")), retracted_seq=props.get("retracted_seq"),
            retract_reason=props.get("retract_reason"), created_seq=props["created_seq"],
            assertions=sorted(a for a in assertions if a is not None),
        )


@strawberry.type(description="An independent source a belief's evidence rests on.")
class BeliefFamily:
    id: str
    kind: str = strawberry.field(description="actor, operator, belief, observation, or source.")
    name: str
    actors: list[str]
    rows: int
    live_rows: int
    contributions: list[FamilyContribution] = strawberry.field(description="What it adds now, per side.")


@strawberry.type(description="One appended version of a belief, with the entry that caused it.")
class BeliefVersion:
    id: str
    version: int
    seq: int
    op: str
    by: str
    at: Long = strawberry.field(description="Entry time, epoch milliseconds.")
    status: str
    confidence: float
    reason: str
    breakdown: Breakdown

    @classmethod
    def of(cls, props: dict[str, Any]) -> BeliefVersion:
        return cls(id=props["id"], version=props["version"], seq=props["seq"], op=props["op"], by=props["by"],
                   at=props["at"], status=props["status"], confidence=props["confidence"],
                   reason=props.get("reason") or "", breakdown=Breakdown.of(props["breakdown"]))


@strawberry.type(description="A statement behind a belief: the assertion, who stands behind it, in which message.")
class BeliefAssertion:
    assertion: Assertion
    evidence: str
    direction: str
    weight: float
    retracted: bool
    observation: str
    text: str | None
    speaker: str | None
    tick: int | None


@dataclass(frozen=True)
class BeliefDetail:
    """A belief's `belief_detail` row joined: its newest version's properties, its evidence rows'
    properties, each row's roots and assertions by row id, and its families (each with its actors and
    its row counts, live rows being those not retracted), ordered by id."""

    latest: dict[str, Any] | None
    evidence: list[dict[str, Any]]
    roots: dict[str, list[dict[str, Any]]]
    assertions: dict[str, list[str]]
    families: list[dict[str, Any]]

    @classmethod
    def of(cls, row: dict[str, Any] | None) -> BeliefDetail:
        if row is None:
            return cls(None, [], {}, {}, [])
        roots: dict[str, list[dict[str, Any]]] = {}
        for r in row["roots"]:
            roots.setdefault(r["evidence"], []).append({"id": r["id"], "label": r["label"]})
        assertions: dict[str, list[str]] = {}
        for a in row["assertions"]:
            assertions.setdefault(a["evidence"], []).append(a["id"])
        retracted = {e["id"]: bool(e.get("retracted")) for e in row["evidence"]}
        actors: dict[str, set[str]] = {}
        for a in row["actors"]:
            actors.setdefault(a["family"], set()).add(a["id"])
        families: dict[str, dict[str, Any]] = {}
        for f in row["families"]:
            family = families.setdefault(f["id"], {"id": f["id"], "kind": f["kind"], "name": f["name"],
                                                   "actors": sorted(actors.get(f["id"], ())), "rows": set()})
            family["rows"].add(f["evidence"])
        return cls(
            latest=row["latest"][0] if row["latest"] else None,
            evidence=list(row["evidence"]),
            roots=roots,
            assertions={e: sorted(ids) for e, ids in assertions.items()},
            families=[{**f, "rows": len(f["rows"]), "live_rows": sum(not retracted[e] for e in f["rows"])}
                      for _, f in sorted(families.items())],
        )


@strawberry.type(description="A proposition held with an evidence-derived confidence and a status.")
class Belief(Node):
    id: strawberry.ID
    proposition: str
    subject: str | None
    entity: str | None
    epistemic_kind: str
    status: str
    confidence: float
    prior: float
    version: int
    pinned: bool
    pinned_status: str | None
    superseded_by: str | None
    origin: str
    created_seq: int
    created_by: str
    updated_seq: int
    detail: strawberry.Private[BeliefDetail | None] = None

    @classmethod
    def of(cls, p: dict[str, Any]) -> Belief:
        return cls(id=p["id"], proposition=p["proposition"], subject=p.get("subject"), entity=p.get("entity"),
                   epistemic_kind=p["epistemic_kind"], status=p["status"], confidence=p["confidence"],
                   prior=p["prior"], version=p["version"], pinned=bool(p.get("pinned")),
                   pinned_status=p.get("pinned_status"), superseded_by=p.get("superseded_by"),
                   origin=p.get("origin") or "client", created_seq=p["created_seq"], created_by=p["created_by"],
                   updated_seq=p.get("updated_seq") or 0)

    @strawberry.field(description="Every evidence row bearing on it, retracted ones included, in write order.")
    def evidence(self, info: strawberry.Info[Any, Any]) -> list[Evidence]:
        detail = self._detail(info)
        found = [Evidence.of(props, detail.roots.get(props["id"], []), detail.assertions.get(props["id"], []))
                 for props in detail.evidence]
        return sorted(found, key=lambda e: (e.created_seq, _numbers(e.id)))

    @strawberry.field(description="Its current breakdown (the newest version's).")
    def breakdown(self, info: strawberry.Info[Any, Any]) -> Breakdown:
        latest = self._detail(info).latest
        if latest is None:
            raise NotFound(f"id: no belief {self.id!r}", field="id")
        return Breakdown.of(latest["breakdown"])

    @strawberry.field(description="Its independent source families and what each adds now.")
    def families(self, info: strawberry.Info[Any, Any]) -> list[BeliefFamily]:
        contributions: dict[str, list[FamilyContribution]] = {}
        for c in self.breakdown(info).families:
            contributions.setdefault(c.family, []).append(c)
        return [
            BeliefFamily(id=f["id"], kind=f["kind"], name=f["name"], actors=f["actors"], rows=f["rows"],
                         live_rows=f["live_rows"], contributions=contributions.get(f["id"], []))
            for f in self._detail(info).families
        ]

    def _detail(self, info: strawberry.Info[Any, Any]) -> BeliefDetail:
        # One read for the evidence, breakdown and families fields, however many of them are asked for.
        if self.detail is None:
            rows = service_of(info).graph.run("belief_detail", {"id": self.id})
            self.detail = BeliefDetail.of(rows[0] if rows else None)
        return self.detail

    @strawberry.field(description="Its append-only history, oldest first.")
    def versions(self, info: strawberry.Info[Any, Any]) -> list[BeliefVersion]:
        return [BeliefVersion.of(r["version"]) for r in service_of(info).graph.run("belief_versions", {"id": self.id})]

    @strawberry.field(description="The statements whose assertions support or oppose it, and who made them.")
    def assertions(self, info: strawberry.Info[Any, Any]) -> list[BeliefAssertion]:
        rows = service_of(info).graph.run("belief_assertions", {"id": self.id})
        return [
            BeliefAssertion(assertion=Assertion.of(r["assertion"], r["evidence"], self.id), evidence=r["evidence"],
                            direction=r["direction"], weight=r["weight"], retracted=bool(r["retracted"]),
                            observation=r["observation"], text=r["text"], speaker=r["speaker"], tick=r["tick"])
            for r in rows
        ]


@strawberry.type(description="One belief of a page and the cursor to resume after it.")
class BeliefEdge:
    cursor: str
    node: Belief


@strawberry.type(description="A page of beliefs by confidence, with where it ends and how many match.")
class BeliefConnection:
    edges: list[BeliefEdge]
    page_info: PageInfo
    total_count: int


@strawberry.enum(description="How beliefs are ordered; ties by id.")
class BeliefOrder(Enum):
    CONFIDENCE_DESC = "desc"
    CONFIDENCE_ASC = "asc"


@strawberry.input(description="Select beliefs; every field given must match.")
class BeliefFilter:
    status: BeliefStatus | None = strawberry.field(default=None, description="This status.")
    subject: str | None = strawberry.field(default=None, description="About this subject.")
    kind: EpistemicKind | None = strawberry.field(default=None, description="The epistemic kind.")


@strawberry.type(description="A node a belief walk reached: how far, from which node, through which edge.")
class BeliefWalkStep:
    id: str
    label: str = strawberry.field(description="Belief, Evidence, Observation or Item.")
    depth: int
    via: str = strawberry.field(description="The node it was reached from.")
    edge: str = strawberry.field(description="The relationship followed (BEARS_ON, ROOTED_IN, DERIVED_FROM).")
    status: str | None = strawberry.field(description="A belief's or item's status, an evidence row's direction.")
    summary: str | None
    confidence: float | None
    gone: bool = strawberry.field(description="A retracted evidence row or an observation marked inaccurate.")


# (query, edge followed, label of the node it reaches); a query applies to the frontier ids it matches.
UPSTREAM_STEPS: tuple[tuple[str, str, str], ...] = (
    ("belief_evidence_step", "BEARS_ON", "Evidence"),
    ("belief_root_observation_step", "ROOTED_IN", "Observation"),
    ("belief_root_item_step", "ROOTED_IN", "Item"),
    ("belief_root_belief_step", "ROOTED_IN", "Belief"),
    ("item_premises_step", "DERIVED_FROM", "Item"),
)
DEPENDENT_STEPS: tuple[tuple[str, str, str], ...] = (
    ("belief_observation_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_item_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_belief_dependents_step", "ROOTED_IN", "Evidence"),
    ("belief_bears_on_step", "BEARS_ON", "Belief"),
    ("item_dependents_step", "DERIVED_FROM", "Item"),
)


def belief_walk(service: Service, start: str, steps: tuple[tuple[str, str, str], ...],
                max_depth: int | None) -> list[BeliefWalkStep]:
    """Walk level by level (each node once) and describe every node reached."""
    if max_depth is not None and not 1 <= max_depth <= MAX_WALK_DEPTH:
        raise UserError(f"maxDepth must be between 1 and {MAX_WALK_DEPTH}, got {max_depth}", field="maxDepth")
    service.journal.catch_up()
    table = {query: (edge, label) for query, edge, label in steps}
    reached = walk(service.graph, [start], [(query, query) for query, _, _ in steps], max_depth)
    about = {r["id"]: r for r in service.graph.run("belief_nodes_by_id", {"ids": [r.id for r in reached]})}
    out = []
    for r in sorted(reached, key=lambda r: (r.depth, _numbers(r.id), r.id)):
        edge, label = table[r.step]
        node = about.get(r.id, {})
        out.append(BeliefWalkStep(id=r.id, label=label, depth=r.depth, via=r.via, edge=edge,
                                  status=node.get("status"), summary=node.get("summary"),
                                  confidence=node.get("confidence"), gone=bool(node.get("gone"))))
    return out


# ---- reads -------------------------------------------------------------------------------------


def belief_props(service: Service, belief_id: str) -> dict[str, Any]:
    rows = service.graph.run("belief_by_id", {"id": belief_id})
    if not rows:
        raise NotFound(f"id: no belief {belief_id!r}", field="id")
    return rows[0]["belief"]


def _numbers(text: str) -> tuple[int, ...]:
    # Ids like e12.3 sort by their numbers (e12.10 after e12.9).
    return tuple(int(n) for n in _ID_NUMBERS.findall(text))


def encode_cursor(key: float, belief_id: str) -> str:
    """A keyset cursor: the belief's confidence key (units of 1e-9, a whole number) and its id."""
    return base64.b64encode(f"{_CURSOR_PREFIX}{int(key)}:{belief_id}".encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[int | None, str | None]:
    if cursor is None:
        return None, None
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if not text.startswith(_CURSOR_PREFIX):
            raise ValueError
        key, _, belief_id = text[len(_CURSOR_PREFIX):].partition(":")
        if not belief_id:
            raise ValueError
        return int(key), belief_id
    except ValueError:
        raise UserError(f"after: {cursor!r} is not a belief cursor", field="after") from None


@strawberry.type
class BeliefQuery:
    @strawberry.field(description="One belief with its evidence, families, versions, breakdown and assertions."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def belief(self, info: strawberry.Info[Any, Any], id: str) -> Belief | None:
        service = caught_up(info)
        return Belief.of(belief_props(service, id))

    @strawberry.field(description="Beliefs by filter, ordered by confidence, a page at a time (first ≤ 500).")
    @user_errors
    def beliefs(self, info: strawberry.Info[Any, Any], filter: BeliefFilter | None = None,
                order_by: BeliefOrder = BeliefOrder.CONFIDENCE_DESC, first: int | None = None,
                after: str | None = None) -> BeliefConnection:
        size = page_size(first)
        after_key, after_id = decode_cursor(after)
        service = caught_up(info)
        wanted = filter or BeliefFilter()
        params = {"status": plain(wanted.status), "subject": wanted.subject, "kind": plain(wanted.kind)}
        rows = service.graph.run(f"belief_page_confidence_{order_by.value}",
                                 {**params, "after_key": after_key, "after_id": after_id,
                                  "limit": size + 1})
        more, rows = len(rows) > size, rows[:size]
        edges = [BeliefEdge(cursor=encode_cursor(r["key"], r["belief"]["id"]),
                            node=Belief.of(r["belief"])) for r in rows]
        total = service.graph.run("belief_count", params)[0]["total"]
        return BeliefConnection(
            edges=edges,
            page_info=PageInfo(has_next_page=more, has_previous_page=after is not None,
                               start_cursor=edges[0].cursor if edges else None,
                               end_cursor=edges[-1].cursor if edges else None),
            total_count=total,
        )

    @strawberry.field(description="What a belief rests on: evidence, its roots (observations, items, beliefs) "
                                  "and their own upstream, each with its depth and the edge it came through.")
    @user_errors
    def belief_upstream(self, info: strawberry.Info[Any, Any], id: str,
                        max_depth: int | None = None) -> list[BeliefWalkStep]:
        service = caught_up(info)
        belief_props(service, id)
        return belief_walk(service, id, UPSTREAM_STEPS, max_depth)

    @strawberry.field(description="What falls if this node (a belief, observation or item) goes: the live "
                                  "evidence rooted in it, the beliefs that evidence bears on, and onwards.")
    @user_errors
    def belief_dependents(self, info: strawberry.Info[Any, Any], id: str,
                          max_depth: int | None = None) -> list[BeliefWalkStep]:
        service = service_of(info)
        if not id.strip():
            raise UserError("id must be a non-empty string", field="id")
        return belief_walk(service, id, DEPENDENT_STEPS, max_depth)


# ---- writes ------------------------------------------------------------------------------------
