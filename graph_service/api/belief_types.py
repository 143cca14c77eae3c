"""GraphQL types of the belief layer: beliefs from the graph (evidence, families, versions, breakdown,
the assertions behind them) and the steps of walks over what they rest on. Queries are in belief_query.py, writes in
belief_mutations.py."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import strawberry
from strawberry.types.nodes import SelectedField, Selection

from graph_service.api.context import service_of
from graph_service.api.journal_types import PageInfo
from graph_service.api.node import Node
from graph_service.api.pages import Counted
from graph_service.api.scalars import Long
from graph_service.api.statement_types import Assertion
from graph_service.api.vocabularies import (
    BeliefStatus,
    Derivation,
    EpistemicKind,
    EvidenceDirection,
    PinnableStatus,
    ProvenanceStatus,
    RootKind,
)
from graph_service.beliefs.as_of import props_then
from graph_service.beliefs.projecting import version_id
from graph_service.errors import NotFound
from graph_service.history import HistoryMissing, check_position
from graph_service.service import Service

_ID_NUMBERS = re.compile(r"\d+")


# ---- read types --------------------------------------------------------------------------------


@strawberry.type(description="What one source family adds on one side of a belief.")
class FamilyContribution:
    family: str = strawberry.field(description="The family's id, e.g. actor:ann or operator.")
    direction: str = strawberry.field(description="for or against: the side these rows are on.")
    contribution: float = strawberry.field(description="What it adds on that side: the strongest primary value "
                                                       "plus 0.25 × each further one, capped; else the strongest "
                                                       "derived value.")
    strongest: float = strawberry.field(description="Its strongest row's value (weight × credibility).")
    primary_rows: int = strawberry.field(description="Its live rows on this side with a primary derivation.")
    derived_rows: int = strawberry.field(description="Its live rows on this side with a derived derivation.")
    basis: str = strawberry.field(description="primary, or derived when the family has no primary row.")
    capped: bool = strawberry.field(description="Repetition reached 1.5 × the strongest row.")

    @classmethod
    def of(cls, raw: dict[str, Any]) -> FamilyContribution:
        return cls(family=raw["family"], direction=raw["direction"], contribution=raw["contribution"],
                   strongest=raw["strongest"], primary_rows=raw["primary_rows"], derived_rows=raw["derived_rows"],
                   basis=raw["basis"], capped=raw["capped"])


@strawberry.type(description="How a confidence came about: prior, families, totals, diversity and the formula.")
class Breakdown:
    epistemic_kind: str = strawberry.field(description="The belief's epistemic kind, which set the prior.")
    prior: float = strawberry.field(description="The confidence before any evidence, by epistemic kind.")
    families: list[FamilyContribution] = strawberry.field(description="What each family adds, per side.")
    support: float = strawberry.field(name="for", description="Σ contribution over supporting families.")
    against: float = strawberry.field(description="Σ contribution over opposing families.")
    supporting_families: int = strawberry.field(description="Families on the for side whose rows are worth more "
                                                            "than 0.")
    opposing_families: int = strawberry.field(description="Families on the against side whose rows are worth more "
                                                          "than 0.")
    diversity: float = strawberry.field(description="0.6 + 0.4 × min(1, (supporting families − 1) / 2); 0.6 with "
                                                    "none.")
    log_odds: float = strawberry.field(description="logit(prior) + 1.5 × (for × diversity − against).")
    confidence: float = strawberry.field(description="sigmoid(logOdds) clamped to [0.02, 0.98].")
    formula: str = strawberry.field(description="The arithmetic with these numbers, as text.")
    notes: list[str] = strawberry.field(description="What a reader should know: caps reached, derived rows "
                                                    "that add nothing, legacy rows, clamping.")

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
    id: str = strawberry.field(description="The node's id (obs-…, k-… or b…).")
    label: str = strawberry.field(description="Observation, Item or Belief.")


@strawberry.type(description="One piece of evidence bearing on one belief.")
class Evidence(Node):
    id: strawberry.ID = strawberry.field(description="e<seq>.<n>: the n-th row the entry at seq wrote.")
    belief: str = strawberry.field(description="The id of the belief it bears on.")
    direction: EvidenceDirection = strawberry.field(description="for or against.")
    weight: float = strawberry.field(description="How much it bears on the proposition, 0 to 1.")
    credibility: float = strawberry.field(description="Trust in its source, 0 to 1.")
    value: float = strawberry.field(description="weight × credibility.")
    derivation: Derivation = strawberry.field(description="How it came about.")
    family: str = strawberry.field(description="The independent source it ultimately rests on (actor:ann, "
                                               "operator, …).")
    provenance_status: ProvenanceStatus = strawberry.field(description="recorded or legacy_unknown.")
    root_kind: RootKind | None = strawberry.field(description="What it rests on; null for a legacy row.")
    root_ids: list[str] = strawberry.field(description="The ids of what it rests on, as written.")
    roots: list[EvidenceRoot] = strawberry.field(description="The graph nodes it is rooted in.")
    origin: str = strawberry.field(description="What wrote it: client, statement, contradiction, correction or "
                                               "association.")
    actor: str | None = strawberry.field(description="The actor who stands behind it, when one does.")
    note: str | None = strawberry.field(description="The writer's note; null if none.")
    retracted: bool = strawberry.field(description="True once retracted (or a root it cites went); it then counts "
                                                   "for nothing.")
    retracted_seq: int | None = strawberry.field(description="The journal position it was retracted at; null "
                                                             "while live.")
    retract_reason: str | None = strawberry.field(description="Why it was retracted; null while live.")
    created_seq: int = strawberry.field(description="The journal position that wrote it.")
    assertions: list[str] = strawberry.field(description="The assertions that yielded it (statements).")

    @classmethod
    def of(cls, props: dict[str, Any], roots: list[dict[str, Any]], assertions: list[str]) -> Evidence:
        return cls(
            id=props["id"], belief=props["belief"], direction=EvidenceDirection(props["direction"]),
            weight=props["weight"], credibility=props["credibility"], value=props["value"],
            derivation=Derivation(props["derivation"]), family=props["family"],
            provenance_status=ProvenanceStatus(props["provenance_status"]),
            root_kind=None if props.get("root_kind") is None else RootKind(props["root_kind"]),
            root_ids=list(props.get("root_ids") or []),
            roots=[EvidenceRoot(id=r["id"], label=r["label"]) for r in sorted(roots, key=lambda r: r["id"])],
            origin=props["origin"], actor=props.get("actor"), note=props.get("note"),
            retracted=bool(props.get("retracted")), retracted_seq=props.get("retracted_seq"),
            retract_reason=props.get("retract_reason"), created_seq=props["created_seq"],
            assertions=sorted(a for a in assertions if a is not None),
        )


@strawberry.type(description="An independent source a belief's evidence rests on.")
class BeliefFamily:
    id: str = strawberry.field(description="The family as evidence names it: <kind>:<name>, or a bare source id.")
    kind: str = strawberry.field(description="actor, operator, belief, observation, or source.")
    name: str = strawberry.field(description="The id without its kind prefix.")
    actors: list[str] = strawberry.field(description="The actors its rows name, sorted.")
    rows: int = strawberry.field(description="Its evidence rows on this belief, retracted ones included.")
    live_rows: int = strawberry.field(description="Its rows not retracted.")
    # Its belief's breakdown by family, read only when a client asks for contributions (a lean read
    # of the belief has no breakdown to give).
    contributions_by_family: strawberry.Private[Callable[[], dict[str, list[FamilyContribution]]]]

    @strawberry.field(description="What it adds now, per side.")
    def contributions(self) -> list[FamilyContribution]:
        return self.contributions_by_family().get(self.id, [])


@strawberry.type(description="One appended version of a belief, with the entry that caused it.")
class BeliefVersion:
    id: str = strawberry.field(description="<belief id>/v<version>.")
    version: int = strawberry.field(description="1 for the first, one more for each change.")
    seq: int = strawberry.field(description="The journal position of the entry that caused it.")
    op: str = strawberry.field(description="That entry's operation (belief.create, belief.evidence, …).")
    by: str = strawberry.field(description="The principal who wrote that entry.")
    at: Long = strawberry.field(description="Entry time, epoch milliseconds.")
    status: BeliefStatus = strawberry.field(description="The belief's status from this version on.")
    confidence: float = strawberry.field(description="Its confidence from this version on, 0.02 to 0.98.")
    reason: str = strawberry.field(description="Why it changed, in words; empty if none was given.")
    breakdown: Breakdown = strawberry.field(description="How this version's confidence came about.")

    @classmethod
    def of(cls, props: dict[str, Any]) -> BeliefVersion:
        return cls(id=props["id"], version=props["version"], seq=props["seq"], op=props["op"], by=props["by"],
                   at=props["at"], status=BeliefStatus(props["status"]), confidence=props["confidence"],
                   reason=props.get("reason") or "", breakdown=Breakdown.of(props["breakdown"]))


@strawberry.type(description="A statement behind a belief: the assertion, who stands behind it, in which message.")
class BeliefAssertion:
    assertion: Assertion = strawberry.field(description="The assertion, as interpreted.")
    evidence: str = strawberry.field(description="The id of the evidence row it yielded.")
    direction: str = strawberry.field(description="for or against: that row's side (expressed doubt is against).")
    weight: float = strawberry.field(description="That row's weight, hedging, reporting and interpretation "
                                                 "already counted.")
    retracted: bool = strawberry.field(description="True once that row was retracted.")
    observation: str = strawberry.field(description="The id of the message observation it was made in.")
    text: str | None = strawberry.field(description="The message's text.")
    speaker: str | None = strawberry.field(description="Who said the message (NFKC, case-folded).")
    tick: Long | None = strawberry.field(description="The tick the message was said at.")


StateOf = Callable[[str, str], "dict[str, Any] | None"]

# The fields whose answer needs a part of `belief_detail` that `belief_evidence_families` does not read
# (the newest version, the rows' roots and assertions, the families' actors).
FULL_DETAIL_FIELDS = frozenset({"breakdown", "contributions", "roots", "assertions", "actors"})


def detail_query(selections: list[Selection]) -> str:
    """The read a belief's selection needs: `belief_evidence_families` when no field under it (at any
    depth, through fragments, whatever it is aliased to) is one of FULL_DETAIL_FIELDS, else
    `belief_detail`. By name alone, so it may read more than a selection needs, never less."""
    stack = list(selections)
    while stack:
        selection = stack.pop()
        if isinstance(selection, SelectedField) and selection.name in FULL_DETAIL_FIELDS:
            return "belief_detail"
        stack.extend(selection.selections)
    return "belief_evidence_families"


@dataclass(frozen=True)
class BeliefDetail:
    """A belief's `belief_detail` row joined: its newest version's properties, its evidence rows'
    properties, each row's roots and assertions by row id, and its families (each with its actors and
    its row counts, live rows being those not retracted), ordered by id.

    From a `belief_evidence_families` row, `lean`: no newest version, no roots, assertions or actors.

    As of a journal position (`of(row, position, state_of)`): only the edges written by then, each row
    and version as its history says it was then (`state_of(label, id)`)."""

    latest: dict[str, Any] | None
    evidence: list[dict[str, Any]]
    roots: dict[str, list[dict[str, Any]]]
    assertions: dict[str, list[str]]
    families: list[dict[str, Any]]
    lean: bool = False

    @classmethod
    def of(cls, row: dict[str, Any] | None, position: int | None = None,
           state_of: StateOf | None = None) -> BeliefDetail:
        if row is None:
            return cls(None, [], {}, {}, [])

        def held(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            if position is None:
                return items
            if any(x.get("since") is None for x in items):
                raise HistoryMissing(position)
            return [x for x in items if x["since"] <= position]

        def now(label: str, node_id: str, current: dict[str, Any]) -> dict[str, Any]:
            if position is None or state_of is None:
                return current
            state = state_of(label, node_id)
            if state is None:
                raise HistoryMissing(position)
            return state

        evidence = [now("Evidence", e["props"]["id"], e["props"]) for e in held(row["evidence"])]
        present = {e["id"] for e in evidence}
        roots: dict[str, list[dict[str, Any]]] = {}
        lean = "latest" not in row
        for r in held(row.get("roots", [])):
            if r["evidence"] in present:
                roots.setdefault(r["evidence"], []).append({"id": r["id"], "label": r["label"]})
        assertions: dict[str, list[str]] = {}
        for a in held(row.get("assertions", [])):
            if a["evidence"] in present:
                assertions.setdefault(a["evidence"], []).append(a["id"])
        retracted = {e["id"]: bool(e.get("retracted")) for e in evidence}
        actors: dict[str, set[str]] = {}
        for a in held(row.get("actors", [])):
            actors.setdefault(a["family"], set()).add(a["id"])
        families: dict[str, dict[str, Any]] = {}
        for f in held(row["families"]):
            if f["evidence"] not in present:
                continue
            # A family's kind and name are its id's (beliefs.records.family_props): the same at every position.
            family = families.setdefault(f["id"], {"id": f["id"], "kind": f["kind"], "name": f["name"],
                                                   "actors": sorted(actors.get(f["id"], ())), "rows": set()})
            family["rows"].add(f["evidence"])
        latest = row["latest"][0] if row.get("latest") else None
        if position is not None and state_of is not None:
            belief = state_of("Belief", row["belief"]["id"])
            latest = None if belief is None else now("BeliefVersion", version_id(belief["id"], belief["version"]), {})
        return cls(
            latest=latest,
            evidence=evidence,
            roots=roots,
            assertions={e: sorted(ids) for e, ids in assertions.items()},
            families=[{**f, "rows": len(f["rows"]), "live_rows": sum(not retracted[e] for e in f["rows"])}
                      for _, f in sorted(families.items())],
            lean=lean,
        )


@strawberry.type(description="A proposition held with an evidence-derived confidence and a status.")
class Belief(Node):
    id: strawberry.ID = strawberry.field(description="b<seq>.<n>: the n-th belief the entry at seq created.")
    proposition: str = strawberry.field(description="What is believed, as text.")
    subject: str | None = strawberry.field(description="What it is about, as given; null if none was.")
    entity: str | None = strawberry.field(description="The entity its subject belongs to (sameEntity merges "
                                                      "them); contradictions are looked for within one entity.")
    epistemic_kind: EpistemicKind = strawberry.field(description="What sort of proposition it is.")
    status: BeliefStatus = strawberry.field(description="Where it stands.")
    confidence: float = strawberry.field(description="Its evidence-derived confidence, 0.02 to 0.98.")
    prior: float = strawberry.field(description="Its confidence before any evidence, by epistemic kind.")
    version: int = strawberry.field(description="How many versions it has (the newest's number).")
    pinned: bool = strawberry.field(description="True while an operator's pin sets its status.")
    pinned_status: PinnableStatus | None = strawberry.field(description="The status it is pinned at; null unless "
                                                                        "pinned.")
    superseded_by: str | None = strawberry.field(description="The belief that superseded it; null if none.")
    origin: str = strawberry.field(description="What created it: client, statement, association, contradiction "
                                               "or correction.")
    created_seq: int = strawberry.field(description="The journal position that created it.")
    created_by: str = strawberry.field(description="The principal who created it.")
    updated_seq: int = strawberry.field(description="The journal position of its newest version.")
    detail: strawberry.Private[BeliefDetail | None] = None
    as_of: strawberry.Private[int | None] = None

    @classmethod
    def of(cls, p: dict[str, Any]) -> Belief:
        return cls(id=p["id"], proposition=p["proposition"], subject=p.get("subject"), entity=p.get("entity"),
                   epistemic_kind=EpistemicKind(p["epistemic_kind"]), status=BeliefStatus(p["status"]),
                   confidence=p["confidence"],
                   prior=p["prior"], version=p["version"], pinned=bool(p.get("pinned")),
                   pinned_status=None if p.get("pinned_status") is None else PinnableStatus(p["pinned_status"]),
                   superseded_by=p.get("superseded_by"),
                   origin=p.get("origin") or "client", created_seq=p["created_seq"], created_by=p["created_by"],
                   updated_seq=p.get("updated_seq") or 0)

    @strawberry.field(description="Every evidence row bearing on it, retracted ones included, in write order.")
    def evidence(self, info: strawberry.Info[Any, Any]) -> list[Evidence]:
        detail = self._detail(info)
        found = [Evidence.of(props, detail.roots.get(props["id"], []), detail.assertions.get(props["id"], []))
                 for props in detail.evidence]
        return sorted(found, key=lambda e: (e.created_seq, id_numbers(e.id)))

    @strawberry.field(description="Its current breakdown (the newest version's).")
    def breakdown(self, info: strawberry.Info[Any, Any]) -> Breakdown:
        latest = self._detail(info, full=True).latest
        if latest is None:
            raise NotFound(f"id: no belief {self.id!r}", field="id")
        return Breakdown.of(latest["breakdown"])

    @strawberry.field(description="Its independent source families and what each adds now.")
    def families(self, info: strawberry.Info[Any, Any]) -> list[BeliefFamily]:
        @functools.cache
        def contributions() -> dict[str, list[FamilyContribution]]:
            # The breakdown's rows by family: parsed once for all the families, and only if one is asked.
            by_family: dict[str, list[FamilyContribution]] = {}
            for c in self.breakdown(info).families:
                by_family.setdefault(c.family, []).append(c)
            return by_family

        return [
            BeliefFamily(id=f["id"], kind=f["kind"], name=f["name"], actors=f["actors"], rows=f["rows"],
                         live_rows=f["live_rows"], contributions_by_family=contributions)
            for f in self._detail(info).families
        ]

    def _detail(self, info: strawberry.Info[Any, Any], full: bool = False) -> BeliefDetail:
        # One read for the evidence, breakdown and families fields, however many of them are asked for;
        # as of a position (a page of beliefs as of it), what they were then. `full`: not a lean read
        # (belief_evidence_families, chosen for a selection that needs no more), read again if it was.
        if self.detail is None or (full and self.detail.lean):
            service = service_of(info)
            rows = service.graph.run("belief_detail", {"id": self.id})
            row = rows[0] if rows else None
            self.detail = BeliefDetail.of(row) if self.as_of is None or row is None \
                else detail_then(service, row, self.as_of)[1]
        return self.detail

    @strawberry.field(description="Its append-only history, oldest first.")
    def versions(self, info: strawberry.Info[Any, Any]) -> list[BeliefVersion]:
        rows = service_of(info).graph.run("belief_versions", {"id": self.id})
        # A version never changes once written: as of a position, the ones up to the version it had then.
        return [BeliefVersion.of(r["version"]) for r in rows
                if self.as_of is None or r["version"]["version"] <= self.version]

    @strawberry.field(description="The statements whose assertions support or oppose it, and who made them.")
    def assertions(self, info: strawberry.Info[Any, Any]) -> list[BeliefAssertion]:
        rows = service_of(info).graph.run("belief_assertions", {"id": self.id})
        # As of a position: the rows that bore on it then, retracted or not as they were then (what was said,
        # and by whom, never changes).
        then = None if self.as_of is None else {e["id"]: e for e in self._detail(info).evidence}
        out = []
        for r in rows:
            if then is not None and r["evidence"] not in then:
                continue
            row = r if then is None else {**r, "weight": then[r["evidence"]]["weight"],
                                          "retracted": then[r["evidence"]].get("retracted")}
            out.append(BeliefAssertion(
                assertion=Assertion.of(r["assertion"], r["evidence"], self.id), evidence=r["evidence"],
                direction=r["direction"], weight=row["weight"], retracted=bool(row["retracted"]),
                observation=r["observation"], text=r["text"], speaker=r["speaker"], tick=r["tick"]))
        return out


@strawberry.type(description="One belief of a page and the cursor to resume after it.")
class BeliefEdge:
    cursor: str = strawberry.field(description="Pass as `after` to continue after this belief.")
    node: Belief = strawberry.field(description="The belief.")


@strawberry.type(description="A page of beliefs by confidence, with where it ends and how many match.")
class BeliefConnection:
    edges: list[BeliefEdge] = strawberry.field(description="This page's beliefs, in order.")
    page_info: PageInfo = strawberry.field(description="Whether there are more, and the cursors that bound it.")
    counted: strawberry.Private[Counted]

    @strawberry.field(description="How many beliefs match, across every page.")
    def total_count(self) -> int:
        # Read only when asked: it counts every belief the filter selects (pages.Counted).
        return self.counted.total


@strawberry.enum(description="How beliefs are ordered; ties by id.")
class BeliefOrder(Enum):
    CONFIDENCE_DESC = strawberry.enum_value("desc", description="Most confident first.")
    CONFIDENCE_ASC = strawberry.enum_value("asc", description="Least confident first.")


@strawberry.input(description="Select beliefs; every field given must match.")
class BeliefFilter:
    status: BeliefStatus | None = strawberry.field(default=None, description="This status.")
    subject: str | None = strawberry.field(default=None, description="About this subject.")
    kind: EpistemicKind | None = strawberry.field(default=None, description="The epistemic kind.")


@strawberry.type(description="A node a belief walk reached: how far, from which node, through which edge.")
class BeliefWalkStep:
    id: str = strawberry.field(description="The node's id.")
    label: str = strawberry.field(description="Belief, Evidence, Observation or Item.")
    depth: int = strawberry.field(description="Steps from the start (1: next to it).")
    via: str = strawberry.field(description="The node it was reached from.")
    edge: str = strawberry.field(description="The relationship followed (BEARS_ON, ROOTED_IN, DERIVED_FROM).")
    status: str | None = strawberry.field(description="A belief's or item's status, an evidence row's direction.")
    summary: str | None = strawberry.field(description="A belief's proposition, an item's summary, an "
                                                       "observation's subject or an evidence row's family.")
    confidence: float | None = strawberry.field(description="A belief's confidence; null for other nodes.")
    gone: bool = strawberry.field(description="A retracted evidence row or an observation marked inaccurate.")




# ---- reads -------------------------------------------------------------------------------------


def read_belief(service: Service, belief_id: str, as_of: int | None = None,
                query: str = "belief_detail") -> Belief:
    """The belief with its evidence, breakdown and families read at once: one statement, from the graph,
    which holds every entry's projection when its projected position is the head (else this process
    catches up first, projecting what is missing, and reads again); NotFound if there is none.
    `query`: belief_detail, or belief_evidence_families for a selection that needs no more (see
    detail_query). `as_of`: the belief as it was at that journal position, from the graph's history
    (graph_service.history), never a replay; UserError for a position past the head."""
    if as_of is not None:
        query = "belief_detail"  # detail_then reads every part of it
    rows = service.graph.run(query, {"id": belief_id})
    if not rows or rows[0]["projected"] < rows[0]["head"]:
        service.journal.catch_up()
        rows = service.graph.run(query, {"id": belief_id})
    if not rows:
        raise NotFound(f"id: no belief {belief_id!r}", field="id")
    if as_of is None:
        belief = Belief.of(rows[0]["belief"])
        belief.detail = BeliefDetail.of(rows[0])
        return belief
    check_position(as_of, rows[0]["head"])
    props, detail = detail_then(service, rows[0], as_of)
    if props is None:
        raise NotFound(f"id: no belief {belief_id!r} at position {as_of}", field="id")
    belief = Belief.of(props)
    belief.detail = detail
    belief.as_of = as_of
    return belief


def detail_then(service: Service, row: dict[str, Any], as_of: int) -> tuple[dict[str, Any] | None, BeliefDetail]:
    """From a belief's `belief_detail` row: its properties as of position `as_of` (None if it was not
    there yet) and its detail then, from the histories of it, its evidence rows and its versions (one
    statement)."""
    belief_id = row["belief"]["id"]
    ids = [belief_id, *(e["props"]["id"] for e in row["evidence"]),
           *(version_id(belief_id, v) for v in range(1, row["belief"]["version"] + 1))]
    histories: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for h in service.graph.run("belief_histories_upto", {"ids": ids, "upto": as_of}):
        histories.setdefault((h["label"], h["id"]), []).append(h)

    def state_of(label: str, node_id: str) -> dict[str, Any] | None:
        return props_then(histories.get((label, node_id), []), as_of)

    props = state_of("Belief", belief_id)
    return props, BeliefDetail.of(row, as_of, state_of) if props is not None else BeliefDetail.of(None)


def id_numbers(text: str) -> tuple[int, ...]:
    """The numbers in an id, to sort ids like e12.3 by them (e12.10 after e12.9)."""
    return tuple(int(n) for n in _ID_NUMBERS.findall(text))
