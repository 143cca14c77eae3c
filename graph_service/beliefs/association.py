"""Hypothesis generation: two notable observations close in time propose a causal link.

Conversational turns are not world events: an observation flagged hypothetical, question or
request never seeds a hypothesis, nor do two consecutive turns by one speaker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

ASSOCIATION_WEIGHT = 0.15


@dataclass(frozen=True, slots=True)
class Cue:
    """One observation offered to association, with the flags the caller read off it."""

    id: str
    at: int
    summary: str
    notable: bool = True
    hypothetical: bool = False
    question: bool = False
    request: bool = False
    speaker: str | None = None
    family: str | None = None
    credibility: float = 1.0

    @property
    def source_family(self) -> str:
        return self.family or f"observation:{self.id}"

    @classmethod
    def from_payload(cls, raw: dict[str, Any]) -> Cue:
        return cls(
            id=raw["id"],
            at=raw["at"],
            summary=raw["summary"].strip(),
            notable=raw.get("notable", True),
            hypothetical=raw.get("hypothetical", False),
            question=raw.get("question", False),
            request=raw.get("request", False),
            speaker=raw.get("speaker"),
            family=raw.get("family"),
            credibility=raw.get("credibility", 1.0),
        )


@dataclass(frozen=True, slots=True)
class Proposal:
    cause: Cue
    effect: Cue

    @property
    def proposition(self) -> str:
        return f"{self.cause.summary} may have caused: {self.effect.summary}"

    @property
    def alternatives(self) -> tuple[str, str]:
        a, b = self.cause.summary, self.effect.summary
        return (f"{a} and {b} co-occurred by coincidence", f"a third factor caused both {a} and {b}")


@dataclass(frozen=True, slots=True)
class Refusal:
    observations: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"observations": list(self.observations), "reason": self.reason}


def _disqualified(cue: Cue) -> str | None:
    if not cue.notable:
        return "not notable"
    for flag in ("hypothetical", "question", "request"):
        if getattr(cue, flag):
            return f"conversational turn ({flag}) is not a world event"
    return None


def propose(cues: Sequence[Cue], window_ms: int) -> tuple[list[Proposal], list[Refusal]]:
    """Pair each eligible observation with the nearest eligible one before it within the window.

    Nearest-only pairing keeps the work linear in the observations offered.
    """
    ordered = sorted(cues, key=lambda c: (c.at, c.id))
    refusals: list[Refusal] = []
    previous_turn: dict[str, str | None] = {}
    last_speaker: str | None = None
    for cue in ordered:
        if cue.speaker is not None:
            previous_turn[cue.id] = last_speaker
            last_speaker = cue.speaker
    eligible: list[Cue] = []
    for cue in ordered:
        reason = _disqualified(cue)
        if reason is None:
            eligible.append(cue)
        else:
            refusals.append(Refusal((cue.id,), reason))
    proposals: list[Proposal] = []
    for earlier, later in pairwise(eligible):
        pair = (earlier.id, later.id)
        if later.at - earlier.at > window_ms:
            refusals.append(Refusal(pair, "outside the window"))
        elif _consecutive_turns(earlier, later, previous_turn):
            refusals.append(Refusal(pair, "consecutive turns by one speaker"))
        else:
            proposals.append(Proposal(earlier, later))
    return proposals, refusals


def _consecutive_turns(a: Cue, b: Cue, previous_turn: dict[str, str | None]) -> bool:
    """Both are turns by the same speaker with no other speaker's turn between them."""
    if a.speaker is None or a.speaker != b.speaker:
        return False
    return previous_turn.get(b.id) == a.speaker
