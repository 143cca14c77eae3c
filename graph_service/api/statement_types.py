"""GraphQL for statements (SPEC 3.5): `say` records the message observation, one assertion per claim
and, for factual claims, evidence on the proposition's belief; `assertions` and `observation` read
them back from the graph."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from graph_service.api.context import caught_up, journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.node import Node
from graph_service.api.scalars import Long
from graph_service.errors import NotFound
from graph_service.history import check_position, node_as_of
from graph_service.service import Service
from graph_service.statements import OP_SAY, message_observation_id


@strawberry.type(description="Something that arrived: a stream row (kind, subject, weight) or a message (text).")
class Observation(Node):
    id: strawberry.ID = strawberry.field(description="obs-<seq>-<slot>: the slot-th row the entry at seq wrote "
                                                     "(a message is slot 0).")
    kind: str = strawberry.field(description="message for a statement; otherwise the stream row's kind (seen, "
                                             "given, taken, …).")
    tick: Long = strawberry.field(description="The observer's tick it happened at.")
    entry: int = strawberry.field(description="The journal position that wrote it.")
    observer: str | None = strawberry.field(description="The observer whose stream it is; null for a message.")
    subject: str | None = strawberry.field(description="What the row is about; null for a message.")
    magnitude: int | None = strawberry.field(description="How much (the kind's magnitude rule); null for a message.")
    weight: int | None = strawberry.field(description="Its importance, 1 to 10; null for a message.")
    first: bool | None = strawberry.field(description="The observer's first row of this kind about this subject; "
                                                      "null for a message.")
    text: str | None = strawberry.field(description="What was said; null for a stream row.")
    speaker: str | None = strawberry.field(description="Who said it (NFKC, case-folded); null for a stream row.")
    to: str | None = strawberry.field(description="The observer who heard it; null when not given or for a row.")
    claims: int | None = strawberry.field(description="How many assertions it was read as; null for a stream row.")
    conversational: bool | None = strawberry.field(description="A conversational turn (a hypothetical, question, "
                                                               "imperative or request, or nothing factual), which "
                                                               "never seeds a causal hypothesis; null for a row.")
    inaccurate: bool = strawberry.field(description="An operator marked it inaccurate.")
    inaccurate_reason: str | None = strawberry.field(description="Why it was marked inaccurate; null unless it "
                                                                 "was.")

    @classmethod
    def of(cls, p: dict[str, Any]) -> Observation:
        return cls(id=p["id"], kind=p["kind"], tick=p["tick"], entry=p["entry"], observer=p.get("observer"),
                   subject=p.get("subject"), magnitude=p.get("magnitude"), weight=p.get("weight"),
                   first=p.get("first"), text=p.get("text"), speaker=p.get("speaker"), to=p.get("to"),
                   claims=p.get("claims"), conversational=p.get("conversational"),
                   inaccurate=bool(p.get("inaccurate")), inaccurate_reason=p.get("inaccurate_reason"))


@strawberry.type(description="The interpretation of one claim in a message; append-only.")
class Assertion(Node):
    id: strawberry.ID = strawberry.field(description="asr-<seq>-<index>: the index-th claim of the message the "
                                                     "entry at seq recorded.")
    index: int = strawberry.field(description="Its place among the message's claims, from 0.")
    claim: str = strawberry.field(description="The claim's words, as said (or as the caller added them).")
    proposition: str = strawberry.field(description="What it claims, without frames such as \"I think\" or "
                                                    "\"Ann said\".")
    core: str = strawberry.field(description="The proposition without its negation words.")
    actor: str = strawberry.field(description="Who stands behind the claim (the reported person for reported speech).")
    speaker: str = strawberry.field(description="Who said the message.")
    stance: str = strawberry.field(description="for, against, or none for a claim that asserts nothing.")
    certainty: float = strawberry.field(description="How firmly it was put, 0 to 1 (1 \"definitely\", 0.9 plain, "
                                                    "0.6 \"I think\", 0.4 \"maybe\").")
    modality: str = strawberry.field(description="How it was put: assert, hedge, doubt, deny, hypothetical, "
                                                 "question, imperative, request or unknown.")
    negated: bool = strawberry.field(description="The proposition is negated.")
    reported: bool = strawberry.field(description="Reported speech (\"Ann said that …\"): second-hand, "
                                                  "attributed to the person reported.")
    quoted: bool = strawberry.field(description="Quoted speech: second-hand, attributed to the person quoted.")
    hypothetical: bool = strawberry.field(description="A hypothetical: it yields no evidence.")
    sarcasm: bool = strawberry.field(description="Possibly sarcastic: recorded, not guessed at.")
    interpretation_confidence: float = strawberry.field(description="How sure the interpreter is of its reading, "
                                                                    "0 to 1; below 0.5 it yields no evidence.")
    notes: list[str] = strawberry.field(description="What the interpreter noticed, in words.")
    factual: bool = strawberry.field(description="It asserts something (not a question, request, hypothetical …) "
                                                 "and so yields an evidence row.")
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
    seq: int = strawberry.field(description="The journal position of the statement's entry.")
    by: str = strawberry.field(description="The principal who wrote it.")
    observation: Observation = strawberry.field(description="The observation that the message arrived.")
    assertions: list[Assertion] = strawberry.field(description="One per claim, in order.")


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
    def assertions(self, info: strawberry.Info[Any, Any],
                   observation: Annotated[str, strawberry.argument(
                       description="The message observation's id (obs-<seq>-0).")]) -> list[Assertion]:
        service = caught_up(info)
        observation_props(service, observation, "observation")
        return assertions_of(service, observation)

    @strawberry.field(description="One observation as the graph holds it."
                                  " Missing: null, with a NOT_FOUND error naming it (sibling fields are unaffected).")
    @user_errors
    def observation(self, info: strawberry.Info[Any, Any],
                    id: Annotated[str, strawberry.argument(description="Its id (obs-<seq>-<slot>).")],
                    as_of: Annotated[Long | None, strawberry.argument(
                        description="Answer as of this journal position (0 to the head), from the graph's "
                                    "history: whether it was marked inaccurate by then. Null: now.")] = None
                    ) -> Observation | None:
        service = caught_up(info)
        if as_of is None:
            return Observation.of(observation_props(service, id))
        check_position(as_of, service.journal.seq)
        rows = [r for r in service.graph.run("node_history_upto", {"id": id, "upto": as_of})
                if r["label"] == "Observation"]
        return Observation.of({**node_as_of(rows, as_of, f"observation {id!r}"), "id": id})


@strawberry.type
class StatementMutation:
    @strawberry.mutation(description="Record what someone said: the observation that it arrived, one assertion per "
                                     "claim and, for factual claims, evidence attributed to whoever stands behind "
                                     "it. A model may add claims (extraClaims), never their stance or confidence.")
    @user_errors
    async def say(self, info: strawberry.Info[Any, Any],
            text: Annotated[str, strawberry.argument(description="What was said (at most 10,000 characters).")],
            speaker: Annotated[str, strawberry.argument(description="Who said it; spelt as actors are (NFKC, "
                                                                    "case-folded).")],
            tick: Annotated[Long, strawberry.argument(description="When, on the speaker's clock (not negative).")],
            to: Annotated[str | None, strawberry.argument(
                description="The observer who heard it; a wordless one is refused.")] = None,
            extra_claims: Annotated[list[str] | None, strawberry.argument(
                description="Claims a model read in the text beyond the interpreter's (at most 50).")] = None,
            credibility: Annotated[float, strawberry.argument(
                description="Trust in the speaker, in (0, 1], for the evidence rows it yields.")] = 1.0) -> SayResult:
        service = service_of(info)
        payload = {"text": text, "speaker": speaker, "tick": tick, "to": to, "extra_claims": extra_claims or [],
                   "credibility": credibility}
        written = await journal_write(info, lambda: service.state.statements.plan(OP_SAY, payload),
                                      plan_off_loop=service.stream_in_graph)
        observation = message_observation_id(written.entry.seq)
        return SayResult(seq=written.entry.seq, by=written.entry.by,
                         observation=Observation.of(observation_props(service, observation)),
                         assertions=assertions_of(service, observation))
