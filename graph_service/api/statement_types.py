"""GraphQL for statements (SPEC 3.5): `say` records the message observation, one assertion per claim
and, for factual claims, evidence on the proposition's belief; `assertions` and `observation` read
them back from the graph."""

from __future__ import annotations

from typing import Any

import strawberry

from graph_service.api.context import caught_up, journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.node import Node
from graph_service.errors import NotFound
from graph_service.service import Service
from graph_service.statements import OP_SAY, message_observation_id


@strawberry.type(description="Something that arrived: a stream row (kind, subject, weight) or a message (text).")
class Observation(Node):
    id: strawberry.ID
    kind: str
    tick: int
    entry: int = strawberry.field(description="The journal position that wrote it.")
    observer: str | None
    subject: str | None
    magnitude: int | None
    weight: int | None
    first: bool | None
    text: str | None
    speaker: str | None
    to: str | None
    claims: int | None
    conversational: bool | None
    inaccurate: bool = strawberry.field(description="An operator marked it inaccurate.")
    inaccurate_reason: str | None

    @classmethod
    def of(cls, p: dict[str, Any]) -> Observation:
        return cls(id=p["id"], kind=p["kind"], tick=p["tick"], entry=p["entry"], observer=p.get("observer"),
                   subject=p.get("subject"), magnitude=p.get("magnitude"), weight=p.get("weight"),
                   first=p.get("first"), text=p.get("text"), speaker=p.get("speaker"), to=p.get("to"),
                   claims=p.get("claims"), conversational=p.get("conversational"),
                   inaccurate=bool(p.get("inaccurate")), inaccurate_reason=p.get("inaccurate_reason"))


@strawberry.type(description="The interpretation of one claim in a message; append-only.")
class Assertion(Node):
    id: strawberry.ID
    index: int
    claim: str
    proposition: str
    core: str = strawberry.field(description="The proposition without its negation words.")
    actor: str = strawberry.field(description="Who stands behind the claim (the reported person for reported speech).")
    speaker: str
    stance: str = strawberry.field(description="for, against, or none for a claim that asserts nothing.")
    certainty: float
    modality: str
    negated: bool
    reported: bool
    quoted: bool
    hypothetical: bool
    sarcasm: bool = strawberry.field(description="Possibly sarcastic: recorded, not guessed at.")
    interpretation_confidence: float
    notes: list[str]
    factual: bool
    source: str = strawberry.field(description="message, or extra for a claim the caller added.")
    direction: str | None = strawberry.field(description="The evidence direction, for a factual claim.")
    weight: float | None = strawberry.field(description="The evidence weight, for a factual claim.")
    evidence: str | None = strawberry.field(description="The evidence row it yielded.")
    belief: str | None = strawberry.field(description="The belief that row bears on.")

    @classmethod
    def of(cls, p: dict[str, Any], evidence: str | None, belief: str | None) -> Assertion:
        return cls(id=p["id"], index=p["index"], claim=p["claim"], proposition=p["proposition"], core=p["core"],
                   actor=p["actor"], speaker=p["speaker"], stance=p["stance"], certainty=p["certainty"],
                   modality=p["modality"], negated=p["negated"], reported=p["reported"], quoted=p["quoted"],
                   hypothetical=p["hypothetical"], sarcasm=p["sarcasm"],
                   interpretation_confidence=p["interpretation_confidence"], notes=list(p.get("notes") or []),
                   factual=p["factual"], source=p["source"], direction=p.get("direction"), weight=p.get("weight"),
                   evidence=evidence, belief=belief)


@strawberry.type(description="What one statement became: its journal entry, observation and assertions.")
class SayResult:
    seq: int
    by: str
    observation: Observation
    assertions: list[Assertion]


def observation_props(service: Service, observation_id: str, field: str = "id") -> dict[str, Any]:
    rows = service.graph.run("observation_by_id", {"id": observation_id})
    if not rows:
        raise NotFound(f"{field}: no observation {observation_id!r}", field=field)
    return rows[0]["observation"]


def assertions_of(service: Service, observation_id: str) -> list[Assertion]:
    rows = service.graph.run("assertion_by_observation", {"id": observation_id})
    return [Assertion.of(r["assertion"], r["evidence"], r["belief"]) for r in rows]


@strawberry.type
class StatementQuery:
    @strawberry.field(description="The assertions interpreting one observation (a message), in claim order.")
    @user_errors
    def assertions(self, info: strawberry.Info[Any, Any], observation: str) -> list[Assertion]:
        service = caught_up(info)
        observation_props(service, observation, "observation")
        return assertions_of(service, observation)

    @strawberry.field(description="One observation as the graph holds it."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def observation(self, info: strawberry.Info[Any, Any], id: str) -> Observation | None:
        service = caught_up(info)
        return Observation.of(observation_props(service, id))


@strawberry.type
class StatementMutation:
    @strawberry.mutation(description="Record what someone said: the observation that it arrived, one assertion per "
                                     "claim and, for factual claims, evidence attributed to whoever stands behind "
                                     "it. A model may add claims (extraClaims), never their stance or confidence.")
    @user_errors
    def say(self, info: strawberry.Info[Any, Any], text: str, speaker: str, tick: int, to: str | None = None,
            extra_claims: list[str] | None = None, credibility: float = 1.0) -> SayResult:
        service = service_of(info)
        payload = {"text": text, "speaker": speaker, "tick": tick, "to": to, "extra_claims": extra_claims or [],
                   "credibility": credibility}
        written = journal_write(info, lambda: service.state.statements.plan(OP_SAY, payload))
        observation = message_observation_id(written.entry.seq)
        return SayResult(seq=written.entry.seq, by=written.entry.by,
                         observation=Observation.of(observation_props(service, observation)),
                         assertions=assertions_of(service, observation))
