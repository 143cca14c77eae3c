"""Write gates: the checks a proposed item passes before it is written, each answer recorded.

A gate answers `admit`, `hold` (a behaviour-changing item stays a hypothesis) or `refuse`. The
source check always runs first, whatever list the store is given: the system's own unverified
answers must never become knowledge, so it is part of the store, not a setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graph_service.knowledge.items import BEHAVIOUR_KINDS, SOURCES, Proposal

ADMIT, HOLD, REFUSE = "admit", "hold", "refuse"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One gate's answer about one proposal: admit, hold or refuse, why, and what it measured."""

    gate: str
    outcome: str
    why: str
    measured: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"gate": self.gate, "outcome": self.outcome, "why": self.why, "measured": self.measured}


class GateView(Protocol):
    """What a gate may read of the store: premises and the key and value of stored items."""

    def premise_closure(self, ids: Iterable[str]) -> list[str]:
        """The given ids and every item they rest on, transitively."""
        ...

    def key_value(self, item_id: str) -> tuple[str | None, str | None]:
        """The key and value of a stored item, (None, None) for one without a key or unknown."""
        ...

    def values_on(self, key: str) -> set[str]:
        """The values stored items (live or not) hold on this key."""
        ...


class Gate(Protocol):
    """A write gate: a name and a check."""

    name: str

    def check(self, proposal: Proposal, view: GateView) -> Verdict:
        """The verdict on this proposal; must not change anything."""
        ...


class SourceGate:
    """Refuses any source but person, outcome, spec and verified; a verified item must name `of`."""

    name = "source"

    def check(self, proposal: Proposal, view: GateView) -> Verdict:
        if proposal.source not in SOURCES:
            why = (
                f"source {proposal.source!r} is not one of {', '.join(SOURCES)}: "
                "unverified answers never become knowledge"
            )
            return Verdict(self.name, REFUSE, why, {"source": proposal.source})
        if proposal.source == "verified" and not proposal.of:
            return Verdict(self.name, REFUSE, "a verified item must name the stored decision it is (of)", {})
        return Verdict(self.name, ADMIT, f"source {proposal.source} is accepted", {"source": proposal.source})


class ConsistencyGate:
    """Refuses a self-defeating derivation: an item on the key of what it rests on, with another value."""

    name = "consistency"

    def check(self, proposal: Proposal, view: GateView) -> Verdict:
        key = proposal.key
        if key is None or not proposal.derived_from:
            return Verdict(self.name, ADMIT, "nothing it rests on shares its key", {})
        if not view.values_on(key) - {proposal.value}:
            # No stored item holds another value on this key, so nothing it rests on can: the same
            # verdict as the walk below, without walking a premise closure that may be the whole store.
            return Verdict(self.name, ADMIT, "consistent with everything it rests on", {})
        for premise in view.premise_closure(proposal.derived_from):
            premise_key, premise_value = view.key_value(premise)
            if premise_key == key and premise_value != proposal.value:
                why = f"self-defeating: it rests on {premise}, which has the same key with another value"
                return Verdict(self.name, REFUSE, why, {"premise": premise, "key": key})
        return Verdict(self.name, ADMIT, "consistent with everything it rests on", {})


class ShadowGate:
    """Holds a behaviour-changing item unless its shadow measurement shows it did at least as well.

    The proposal's `shadow` is `{"baseline": x, "candidate": y}` (higher is better); without one the
    item is held for lack of evidence. Facts and episodes pass: the gate is about behaviour.
    """

    name = "shadow"

    def __init__(self, margin: float = 0.0) -> None:
        self.margin = margin

    def check(self, proposal: Proposal, view: GateView) -> Verdict:
        if proposal.kind not in BEHAVIOUR_KINDS:
            return Verdict(self.name, ADMIT, "not a behaviour-changing item", {})
        shadow = proposal.shadow or {}
        baseline, candidate = shadow.get("baseline"), shadow.get("candidate")
        if not isinstance(baseline, (int, float)) or not isinstance(candidate, (int, float)):
            return Verdict(self.name, HOLD, "no shadow measurement yet", {})
        measured = {"baseline": baseline, "candidate": candidate, "margin": self.margin}
        if candidate + 1e-12 >= baseline + self.margin:
            return Verdict(self.name, ADMIT, "did at least as well as the baseline in shadow", measured)
        return Verdict(self.name, HOLD, "did worse than the baseline in shadow", measured)


DEFAULT_GATES: tuple[Gate, ...] = (SourceGate(), ConsistencyGate())


@dataclass(frozen=True, slots=True)
class Admission:
    """The gates' joint answer: admitted (present or promoted), held, or refused; with every verdict."""

    outcome: str
    why: str
    verdicts: tuple[Verdict, ...]

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"


def run_gates(proposal: Proposal, gates: Sequence[Gate], view: GateView) -> Admission:
    """Run the source check, then the other gates in order, stopping at the first refusal.

    A fact or episode is admitted as present, a behaviour-changing item as promoted; a `hold`
    keeps a behaviour-changing item a hypothesis, and refuses a fact or episode (those are present
    at once or not at all).
    """
    ordered: list[Gate] = [SourceGate()] + [g for g in gates if not isinstance(g, SourceGate)]
    verdicts: list[Verdict] = []
    holds: list[Verdict] = []
    for gate in ordered:
        verdict = gate.check(proposal, view)
        verdicts.append(verdict)
        if verdict.outcome == REFUSE:
            return Admission("refused", verdict.why, tuple(verdicts))
        if verdict.outcome == HOLD:
            holds.append(verdict)
    if holds:
        why = "; ".join(f"{v.gate}: {v.why}" for v in holds)
        if proposal.kind in BEHAVIOUR_KINDS:
            return Admission("held", why, tuple(verdicts))
        return Admission("refused", why, tuple(verdicts))
    outcome = "promoted" if proposal.kind in BEHAVIOUR_KINDS else "present"
    return Admission(outcome, "every gate admitted it", tuple(verdicts))
