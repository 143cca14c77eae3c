"""The `statement.say` journal operation: a statement becomes an observation, assertions and
evidence specs (SPEC 3.5).

  statement.say  {"text": str, "speaker": str, "tick": int, "to": str | None,
                  "extra_claims": [str], "credibility": float,
                  "interpreter": str, "assertions": [assertion]}

Planning runs the interpreter and records its whole reading in the entry, so replaying the
journal gives the same assertions even after the interpreter's rules change. Applying projects:
  (:Observation {kind:'message', text, speaker, tick, to, entry, claims, conversational,
                 same_speaker_as_previous})-[:OBSERVED_BY]->(:Actor {id: to})   (when `to` is given)
  (:Assertion {...every AssertionDraft field...})-[:INTERPRETS]->(:Observation)
  (:Assertion)-[:ATTRIBUTED_TO]->(:Actor {id: actor})
  (:Conversation {id: conversation_id(to), hearer: to, last_speaker})   who spoke last to the hearer
and returns the evidence specs as `Applied.result`; the belief layer writes the evidence rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Final

from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.journal.chain import MAX_PAYLOAD_BYTES, Entry, canonical_json
from graph_service.projection import Projection
from graph_service.statements.assertion import ASSERTION_FIELDS, AssertionDraft
from graph_service.statements.interpret import extra_claim_texts, interpret, is_conversational
from graph_service.statements.lexicon import INTERPRETER_VERSION
from graph_service.stream.rows import check_actor, check_tick, observation_id
from graph_service.stream.state import StreamState

OP_SAY: Final = "statement.say"
DEFAULT_CREDIBILITY: Final = 1.0
ROOT_KIND: Final = "observation"
DERIVATION: Final = "assertion"


def message_observation_id(seq: int) -> str:
    """The id of the Observation a say entry at position `seq` writes (the stream's id scheme)."""
    return observation_id(seq, 0)


def conversation_id(hearer: str | None) -> str:
    """The id of the Conversation node that keeps who spoke last to `hearer` (None: to nobody in particular)."""
    return "unaddressed" if hearer is None else f"to:{hearer}"


def assertion_id(seq: int, index: int) -> str:
    """The id of the index-th Assertion of the say entry at position `seq`."""
    return f"asr-{seq}-{index}"


def assertion_props(a: AssertionDraft) -> dict[str, Any]:
    """Scalar properties of an Assertion node: every field, notes as a list, evidence flattened."""
    props = {k: getattr(a, k) for k in ASSERTION_FIELDS if k not in ("notes", "evidence")}
    props["notes"] = list(a.notes)
    props["direction"] = None if a.evidence is None else a.evidence.direction
    props["weight"] = None if a.evidence is None else a.evidence.weight
    return props


class StatementState:
    """Statements heard so far. `stream`, when given, supplies the declared wordless observers:
    a wordless hearer (`to`) or a wordless speaker refuses the statement before anything is written."""

    def __init__(self, stream: StreamState | None = None) -> None:
        self.stream = stream
        self._last_speaker: dict[str, str] = {}
        self._messages = 0

    def last_speaker(self, conversation: str) -> str | None:
        """Who spoke last in the conversation (`conversation_id`), None before anyone did. A state reading it
        from the graph overrides this and `_keep_speaker`."""
        return self._last_speaker.get(conversation)

    def _keep_speaker(self, conversation: str, speaker: str) -> None:
        self._last_speaker[conversation] = speaker

    def handles(self, op: str) -> bool:
        return op == OP_SAY

    @property
    def messages(self) -> int:
        return self._messages

    def plan(self, op: str, payload: Mapping[str, Any]) -> Draft:
        """Plan from a client's plain payload (the API's entry point)."""
        if op != OP_SAY:
            raise UserError(f"unknown statement operation {op!r}", field="op")
        if not isinstance(payload, Mapping):
            raise UserError("payload must be an object", field="payload")
        return self.plan_say(
            payload.get("text"),
            payload.get("speaker"),
            payload.get("tick"),
            to=payload.get("to"),
            extra_claims=payload.get("extra_claims", ()),
            credibility=payload.get("credibility", DEFAULT_CREDIBILITY),
        )

    def plan_say(
        self,
        text: Any,
        speaker: Any,
        tick: Any,
        *,
        to: Any = None,
        extra_claims: Iterable[Any] = (),
        credibility: Any = DEFAULT_CREDIBILITY,
    ) -> Draft:
        """Interpret a statement and return the entry that records it; nothing changes here.

        `to` is the observer who heard it (optional); `credibility` is the trust the caller
        places in the source (0..1], passed through to every evidence spec.
        """
        who = check_actor(speaker, "speaker")
        at = check_tick(tick)
        hearer = None if to is None else check_actor(to, "to")
        if self.stream is not None:
            if hearer is not None:
                self.stream.require_can_speak(hearer, field="to")
            self.stream.require_can_speak(who, field="speaker")
        if isinstance(credibility, bool) or not isinstance(credibility, (int, float)):
            raise UserError(f"credibility must be a number, got {credibility!r}", field="credibility")
        if not math.isfinite(credibility) or not 0 < credibility <= 1:
            raise UserError(f"credibility must be in (0, 1], got {credibility}", field="credibility")
        claims = list(extra_claims) if not isinstance(extra_claims, (str, bytes, Mapping)) else extra_claims
        extras = extra_claim_texts(claims)
        recorded = [a.as_dict() for a in interpret(text, who, claims)]
        payload = {
            "text": text,
            "speaker": who,
            "tick": at,
            "to": hearer,
            "extra_claims": [t for t, _ in extras],
            "credibility": float(credibility),
            "interpreter": INTERPRETER_VERSION,
            "assertions": recorded,
        }
        size = len(canonical_json(payload).encode("utf-8"))
        if size > MAX_PAYLOAD_BYTES:
            raise UserError(
                f"the statement and its reading take {size} bytes; at most {MAX_PAYLOAD_BYTES} fit in one"
                " journal entry: send it in parts",
                field="text",
            )
        return Draft(OP_SAY, payload)

    def apply(self, entry: Entry) -> Applied:
        """Project the statement and hand back the evidence specs of its factual assertions."""
        if entry.op != OP_SAY:
            raise UserError(f"statements do not apply {entry.op!r} entries", field="op")
        speaker, hearer, assertions = heard(entry)
        p = entry.payload
        conversation = conversation_id(hearer)
        consecutive = self.last_speaker(conversation) == speaker
        self._keep_speaker(conversation, speaker)
        self._messages += 1

        obs = message_observation_id(entry.seq)
        projection = Projection()
        projection.node(
            "Observation",
            obs,
            kind="message",
            text=p.get("text"),
            speaker=speaker,
            tick=check_tick(p.get("tick")),
            to=hearer,
            entry=entry.seq,
            claims=len(assertions),
            conversational=is_conversational(assertions),
            same_speaker_as_previous=consecutive,
        )
        projection.node("Conversation", conversation, hearer=hearer, last_speaker=speaker)
        projection.node("Actor", speaker)
        if hearer is not None:
            projection.node("Actor", hearer)
            projection.edge("OBSERVED_BY", "Observation", obs, "Actor", hearer)
        actors = {speaker, *([hearer] if hearer else [])}
        for a in assertions:
            aid = assertion_id(entry.seq, a.index)
            projection.node("Assertion", aid, **assertion_props(a))
            projection.edge("INTERPRETS", "Assertion", aid, "Observation", obs)
            if a.actor not in actors:
                actors.add(a.actor)
                projection.node("Actor", a.actor)
            projection.edge("ATTRIBUTED_TO", "Assertion", aid, "Actor", a.actor)
        return Applied(projection, evidence_specs(entry, assertions))


def heard(entry: Entry) -> tuple[str, str | None, list[AssertionDraft]]:
    """A say entry's speaker, hearer and assertions, checked again (UserError for a malformed one)."""
    p = entry.payload
    speaker = check_actor(p.get("speaker"), "speaker")
    check_tick(p.get("tick"))
    hearer = p.get("to")
    raw = p.get("assertions")
    if not isinstance(raw, list):
        raise UserError("assertions must be a list", field="assertions")
    try:
        assertions = [AssertionDraft.from_dict(a) for a in raw]
    except (KeyError, TypeError) as exc:
        msg = f"entry {entry.seq} has a malformed assertion: {exc}"
        raise UserError(msg, field="assertions") from exc
    return speaker, hearer, assertions


def evidence_specs(entry: Entry, assertions: Iterable[AssertionDraft] | None = None) -> list[dict[str, Any]]:
    """The evidence specs of a say entry's factual assertions (its `Applied.result`), from the entry alone."""
    if assertions is None:
        assertions = heard(entry)[2]
    credibility = float(entry.payload.get("credibility", DEFAULT_CREDIBILITY))
    obs = message_observation_id(entry.seq)
    return [
        {
            **a.evidence.as_dict(),
            "credibility": credibility,
            "root_kind": ROOT_KIND,
            "root_id": obs,
            "assertion_id": assertion_id(entry.seq, a.index),
            "derivation": DERIVATION,
        }
        for a in assertions
        if a.evidence is not None
    ]
