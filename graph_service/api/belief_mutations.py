"""GraphQL writes of the belief layer: one mutation per belief-layer write, each one journal entry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import strawberry

from graph_service.api.arguments import BeliefId, Reason
from graph_service.api.belief_types import Belief, read_belief
from graph_service.api.context import journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.scalars import Long
from graph_service.api.vocabularies import (
    BeliefStatus,
    Derivation,
    EpistemicKind,
    EvidenceDirection,
    InaccurateRootKind,
    PinnableStatus,
    ProvenanceStatus,
    RootKind,
    plain,
)
from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.journal.chain import canonical_json
from graph_service.service import Service


@strawberry.type(description="A belief as it was before or after a write.")
class BeliefSnapshot:
    status: BeliefStatus = strawberry.field(description="Its status then.")
    confidence: float = strawberry.field(description="Its confidence then, 0.02 to 0.98.")
    version: int = strawberry.field(description="Its version number then.")

    @classmethod
    def of(cls, raw: dict[str, Any]) -> BeliefSnapshot:
        return cls(status=BeliefStatus(raw["status"]), confidence=raw["confidence"], version=raw["version"])


@strawberry.type(description="One belief a write changed: before (null when created) and after.")
class BeliefChange:
    belief: str = strawberry.field(description="The belief's id.")
    before: BeliefSnapshot | None = strawberry.field(description="As it was before the write; null when the write "
                                                                 "created it.")
    after: BeliefSnapshot = strawberry.field(description="As the write left it.")


@strawberry.type(description="Something a write did that is worth a line: created, contradiction_detected, ...")
class BeliefEvent:
    name: str = strawberry.field(description="What happened: created, contradiction_detected, belief_retracted, "
                                             "refused, …")
    detail: str = strawberry.field(description="The event's fields as canonical JSON.")


@strawberry.type(description="What one belief-layer write did: its journal entry and every belief it changed.")
class BeliefWrite:
    seq: int = strawberry.field(description="The journal position of its entry.")
    op: str = strawberry.field(description="Its entry's operation (belief.create, evidence.add, belief.correct, …).")
    by: str = strawberry.field(description="The principal who wrote it.")
    created: list[str] = strawberry.field(description="The ids of the beliefs it created.")
    evidence: list[str] = strawberry.field(description="The evidence rows written.")
    retracted_evidence: list[str] = strawberry.field(description="The ids of the evidence rows it retracted.")
    changes: list[BeliefChange] = strawberry.field(description="Every belief whose status, confidence or version "
                                                               "it changed.")
    events: list[BeliefEvent] = strawberry.field(description="What it did worth a line, in order.")
    belief_id: strawberry.Private[str | None]
    pattern: str | None = strawberry.field(description="The do-not-infer pattern written or that refused it.")
    refused: bool = strawberry.field(description="An operator's do-not-infer pattern refused the creation.")

    @strawberry.field(description="The belief the write was about, as the graph holds it now.")
    def belief(self, info: strawberry.Info[Any, Any]) -> Belief | None:
        if self.belief_id is None:
            return None
        return read_belief(service_of(info), self.belief_id)


def _snapshot(raw: dict[str, Any] | None) -> BeliefSnapshot | None:
    if raw is None:
        return None
    return BeliefSnapshot.of(raw)


async def _write(info: strawberry.Info[Any, Any], op: str, payload: dict[str, Any],
           focus: Callable[[dict[str, Any], Draft], str | None],
           check: Callable[[Service], None] | None = None) -> BeliefWrite:
    """Plan against the current state (bad input raises, nothing written), append one entry, report it."""
    service = service_of(info)
    drafts: list[Draft] = []

    def plan() -> Draft:
        draft = service.plan_beliefs(op, payload)  # the shape of the request first
        if check is not None:
            check(service)  # then what it names in other parts of the store
        drafts.append(draft)
        return draft

    # Holding no belief layer, the plan reads only the graph (and the store state's own item and observation
    # sets, for `check`): it runs in a worker thread too.
    written = await journal_write(info, plan, plan_off_loop=service.beliefs_in_graph)
    result = written.result
    refused = result.get("refused")
    return BeliefWrite(
        seq=written.entry.seq, op=written.entry.op, by=written.entry.by, created=list(result["created"]),
        evidence=list(result["evidence"]), retracted_evidence=list(result["retracted_evidence"]),
        changes=[BeliefChange(belief=b, before=_snapshot(c["before"]), after=_snapshot(c["after"]))
                 for b, c in result["beliefs"].items()],
        events=[BeliefEvent(name=e["event"], detail=canonical_json({k: v for k, v in e.items() if k != "event"}))
                for e in result["events"]],
        belief_id=focus(result, drafts[-1]),
        pattern=result.get("pattern") or (refused or {}).get("pattern"),
        refused=refused is not None,
    )


@strawberry.input(description="One evidence row. weight and credibility are within [0, 1].")
class EvidenceInput:
    weight: float = strawberry.field(description="How strongly it bears, within [0, 1].")
    direction: EvidenceDirection = strawberry.field(default=EvidenceDirection["for"],
                                                    description="Whether it supports or opposes.")
    credibility: float | None = strawberry.field(default=None, description="How far its source is trusted, "
                                                                           "within [0, 1].")
    derivation: Derivation | None = strawberry.field(default=None, description="direct when omitted.")
    family: str | None = strawberry.field(default=None, description="The independent source; actor:<actor> "
                                                                    "when only an actor is given.")
    actor: str | None = strawberry.field(default=None, description="Who stands behind it.")
    source: str | None = strawberry.field(default=None, description="The family of a legacy_unknown row.")
    provenance_status: ProvenanceStatus | None = strawberry.field(default=None, description="recorded when "
                                                                                            "omitted.")
    root_kind: RootKind | None = strawberry.field(default=None, description="What it rests on.")
    root_ids: list[str] | None = strawberry.field(default=None, description="The nodes it rests on.")
    note: str | None = strawberry.field(default=None, description="Free text kept with it.")

    def as_payload(self) -> dict[str, Any]:
        raw = {"weight": self.weight, "direction": plain(self.direction), "credibility": self.credibility,
               "derivation": plain(self.derivation), "family": self.family, "actor": self.actor,
               "source": self.source, "provenance_status": plain(self.provenance_status),
               "root_kind": plain(self.root_kind),
               "root_ids": self.root_ids, "note": self.note}
        return {k: v for k, v in raw.items() if v is not None}


@strawberry.input(description="An observation offered to association, with the flags read off it.")
class AssociationCueInput:
    id: str = strawberry.field(description="The observation's id (obs-…); it must exist.")
    at: Long = strawberry.field(description="When it happened, epoch milliseconds.")
    summary: str = strawberry.field(description="What happened, as a clause: it becomes \"<cause> may have caused: "
                                                "<effect>\".")
    notable: bool = strawberry.field(default=True, description="Only notable observations seed a hypothesis.")
    hypothetical: bool = strawberry.field(default=False, description="A hypothetical turn: it never seeds one.")
    question: bool = strawberry.field(default=False, description="A question: it never seeds one.")
    request: bool = strawberry.field(default=False, description="A request: it never seeds one.")
    speaker: str | None = strawberry.field(default=None, description="Who said it, for a conversational turn; "
                                                                     "two consecutive turns by one speaker never "
                                                                     "seed one.")
    family: str | None = strawberry.field(default=None, description="The family its evidence row names; default "
                                                                    "observation:<id>.")
    credibility: float = strawberry.field(default=1.0, description="Trust in it, 0 to 1, for its evidence row.")

    def as_payload(self) -> dict[str, Any]:
        raw = {"id": self.id, "at": self.at, "summary": self.summary, "notable": self.notable,
               "hypothetical": self.hypothetical, "question": self.question, "request": self.request,
               "speaker": self.speaker, "family": self.family, "credibility": self.credibility}
        return {k: v for k, v in raw.items() if v is not None}


def _created(result: dict[str, Any], draft: Draft) -> str | None:
    return result.get("belief")


def _named(name: str) -> Callable[[dict[str, Any], Draft], str | None]:
    return lambda result, draft: draft.payload.get(name)


def _first_proposed(result: dict[str, Any], draft: Draft) -> str | None:
    proposed = result.get("proposed") or []
    return proposed[0]["belief"] if proposed else None


def _nothing(result: dict[str, Any], draft: Draft) -> str | None:
    return None


def _root_exists(root_kind: str, root_id: str) -> Callable[[Service], None]:
    """A root must exist before it can be marked inaccurate (else the mark would name nothing)."""

    def check(service: Service) -> None:
        if not isinstance(root_id, str) or not root_id.strip():
            raise UserError("rootId must be a non-empty string", field="root_id")
        service.state.require_roots(root_kind, [root_id], "root_id")

    return check


def _roots_exist(rows: list[dict[str, Any]], field: str) -> Callable[[Service], None]:
    """Every item or observation an evidence row rests on must exist."""

    def check(service: Service) -> None:
        for i, row in enumerate(rows):
            service.state.require_roots(row.get("root_kind"), row.get("root_ids") or (), f"{field}[{i}].root_ids")

    return check


Subject = Annotated[str, strawberry.argument(description="One subject, as beliefs give it.")]
Other = Annotated[str, strawberry.argument(description="The other subject.")]


@strawberry.type
class BeliefMutation:
    @strawberry.mutation(description="Hold a new proposition, optionally with evidence and superseding an older one.")
    @user_errors
    async def create_belief(self, info: strawberry.Info[Any, Any],
                      proposition: Annotated[str, strawberry.argument(description="What is believed, as text.")],
                      epistemic_kind: Annotated[EpistemicKind, strawberry.argument(
                          description="What sort of proposition it is; it sets the prior.")] = EpistemicKind["claim"],
                      subject: Annotated[str | None, strawberry.argument(
                          description="What it is about; contradictions are looked for among beliefs on the same "
                                      "entity.")] = None,
                      evidence: Annotated[list[EvidenceInput] | None, strawberry.argument(
                          description="Evidence rows to write with it.")] = None,
                      supersedes: Annotated[str | None, strawberry.argument(
                          description="The id of an older belief it replaces (that one becomes superseded).")] = None,
                      ) -> BeliefWrite:
        payload = {"proposition": proposition, "epistemic_kind": plain(epistemic_kind), "subject": subject,
                   "evidence": [e.as_payload() for e in evidence or []], "supersedes": supersedes}
        return await _write(info, "belief.create", payload, _created, _roots_exist(payload["evidence"], "evidence"))

    @strawberry.mutation(description="Add one evidence row to a belief.")
    @user_errors
    async def add_evidence(self, info: strawberry.Info[Any, Any], belief: BeliefId,
                     evidence: Annotated[EvidenceInput, strawberry.argument(description="The row.")]) -> BeliefWrite:
        row = evidence.as_payload()
        return await _write(info, "evidence.add", {"belief": belief, **row}, _named("belief"),
                      _roots_exist([row], "evidence"))

    @strawberry.mutation(description="Retract one evidence row; the belief is re-evaluated, the row kept.")
    @user_errors
    async def retract_evidence(self, info: strawberry.Info[Any, Any],
                         evidence: Annotated[str, strawberry.argument(description="The row's id (e<seq>.<n>).")],
                         reason: Reason = None) -> BeliefWrite:
        # The row's belief is the first the retraction touched (BeliefState.retract_row touches it first).
        return await _write(info, "evidence.retract", {"evidence": evidence, "reason": reason},
                      lambda result, draft: next(iter(result["beliefs"])))

    @strawberry.mutation(description="Operator: this belief is wrong (pinned rejected, history kept)")
    @user_errors
    async def correct_belief(self, info: strawberry.Info[Any, Any], belief: BeliefId,
                             reason: Reason = None) -> BeliefWrite:
        return await _write(info, "belief.correct", {"kind": "wrong", "belief": belief, "reason": reason},
                      _named("belief"))

    @strawberry.mutation(description="Operator: do not infer this again (a belief's proposition, or a proposition).")
    @user_errors
    async def do_not_infer(self, info: strawberry.Info[Any, Any],
                     belief: Annotated[str | None, strawberry.argument(
                         description="A belief whose proposition is not to be inferred again (or give proposition)."
                     )] = None,
                     proposition: Annotated[str | None, strawberry.argument(
                         description="A proposition not to be inferred again (or give belief); creations matching "
                                     "it (token Jaccard ≥ 0.7) are refused.")] = None,
                     reason: Reason = None) -> BeliefWrite:
        if (belief is None) == (proposition is None):
            raise UserError("give exactly one of belief and proposition", field="proposition")
        payload = {"kind": "do_not_infer", "belief": belief, "proposition": proposition, "reason": reason}
        return await _write(info, "belief.correct", payload, lambda result, draft: belief)

    @strawberry.mutation(description="Operator: this observation (or item) is inaccurate; evidence citing it is "
                                     "retracted and the beliefs resting on it re-evaluated.")
    @user_errors
    async def mark_inaccurate(self, info: strawberry.Info[Any, Any],
                        root_id: Annotated[str, strawberry.argument(description="The observation's or item's id.")],
                        root_kind: Annotated[InaccurateRootKind, strawberry.argument(
                            description="Whether root_id is an observation or an item.")
                        ] = InaccurateRootKind["observation"],
                        reason: Reason = None) -> BeliefWrite:
        kind = str(root_kind.value)
        payload = {"kind": "inaccurate", "root_kind": kind, "root_id": root_id, "reason": reason}
        return await _write(info, "belief.correct", payload, _nothing, _root_exists(kind, root_id))

    @strawberry.mutation(description="Operator: these two subjects name the same entity.")
    @user_errors
    async def same_entity(self, info: strawberry.Info[Any, Any], subject: Subject, other: Other,
                    reason: Reason = None) -> BeliefWrite:
        payload = {"kind": "same_entity", "subject": subject, "other": other, "reason": reason}
        return await _write(info, "belief.correct", payload, _nothing)

    @strawberry.mutation(description="Operator: undo the merge of these two subjects.")
    @user_errors
    async def different_entity(self, info: strawberry.Info[Any, Any], subject: Subject, other: Other,
                         reason: Reason = None) -> BeliefWrite:
        payload = {"kind": "different_entity", "subject": subject, "other": other, "reason": reason}
        return await _write(info, "belief.correct", payload, _nothing)

    @strawberry.mutation(description="Propose causal hypotheses from notable observations close in time.")
    @user_errors
    async def associate(self, info: strawberry.Info[Any, Any],
                  observations: Annotated[list[AssociationCueInput], strawberry.argument(
                      description="The observations to pair, each with what was read off it.")],
                  window_ms: Annotated[Long, strawberry.argument(
                      description="How close in time (milliseconds) two observations must be to be paired.")],
                  subject: Annotated[str | None, strawberry.argument(
                      description="The subject of the hypotheses it creates.")] = None) -> BeliefWrite:
        payload = {"observations": [o.as_payload() for o in observations], "window_ms": window_ms,
                   "subject": subject}

        def cues_exist(service: Service) -> None:
            for i, cue in enumerate(observations):
                service.state.require_roots("observation", [cue.id], f"observations[{i}].id")

        return await _write(info, "belief.associate", payload, _first_proposed, cues_exist)

    @strawberry.mutation(description="Operator: fix a belief's status (or free it with status null).")
    @user_errors
    async def pin_belief(self, info: strawberry.Info[Any, Any], belief: BeliefId,
                   status: Annotated[PinnableStatus | None, strawberry.argument(
                       description="The status to pin it at; null frees it to follow its confidence.")] = None,
                   reason: Reason = None) -> BeliefWrite:
        return await _write(info, "belief.pin", {"belief": belief, "status": plain(status), "reason": reason},
                      _named("belief"))

    @strawberry.mutation(description="Propose that two beliefs contradict (e.g. a paraphrase a model noticed).")
    @user_errors
    async def propose_contradiction(self, info: strawberry.Info[Any, Any],
                              a: Annotated[str, strawberry.argument(description="One belief's id.")],
                              b: Annotated[str, strawberry.argument(description="The other belief's id.")],
                              reason: Reason = None) -> BeliefWrite:
        return await _write(info, "belief.contradict", {"a": a, "b": b, "reason": reason}, _named("a"))

