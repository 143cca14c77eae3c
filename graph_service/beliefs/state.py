"""BeliefState: the belief layer as a pure state machine over journal entries (a Domain).

A store plans a request (`plan`), appends the Draft as one journal entry, then calls `apply`;
when another domain retracts an item or marks an observation inaccurate in an entry, the store
also calls `roots_gone` for that entry. Every belief an entry changes gets exactly one new version.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from graph_service.beliefs import corrections, from_statements, generation
from graph_service.beliefs.change import Change
from graph_service.beliefs.confidence import BeliefTallies, assess, assess_tallies
from graph_service.beliefs.contradiction import (
    COUNTER_CREDIBILITY,
    COUNTER_DERIVATION,
    MAX_PROPAGATIONS,
    TOLERANCE,
    contradiction_candidates,
    counter_family,
)
from graph_service.beliefs.entities import EntityRegistry
from graph_service.beliefs.fingerprint import RunningBeliefFingerprint, fingerprint_row
from graph_service.beliefs.planning import duplicate_key, plan
from graph_service.beliefs.projecting import project
from graph_service.beliefs.records import Belief, ContradictionLink, EvidenceRow, Pattern
from graph_service.beliefs.status import derive_status
from graph_service.beliefs.text import Signature, TokenIndex, signature
from graph_service.beliefs.vocabulary import (
    DERIVED_DERIVATIONS,
    FOR,
    ORIGIN_CLIENT,
    ORIGIN_CONTRADICTION,
    RECORDED,
    REJECTED,
    SUPERSEDED,
)
from graph_service.domain import Applied, Draft
from graph_service.journal.chain import Entry
from graph_service.partial_reads import known_empty, read_ahead
from graph_service.projection import EdgeMerge, Projection

OPS = (
    "belief.create",
    "belief.refused",
    "evidence.add",
    "evidence.retract",
    "belief.pin",
    "belief.contradict",
    "belief.correct",
    "belief.associate",
)
DO_NOT_INFER_JACCARD = corrections.DO_NOT_INFER_JACCARD


ROOT_GONE_REASON = "root gone"
"""How a row retracted because a root it cites is gone says so (it is live again when the root is back)."""

class BeliefState:
    """Beliefs, evidence rows and the indexes that keep every write O(what it touches)."""

    def __init__(self) -> None:
        # False while entries are applied for the state alone (a start: the graph holds what they wrote), so
        # their projections, a sixth of a start in graph mode, are not built.
        self.projecting = True
        self.beliefs: dict[str, Belief] = {}
        self.rows: dict[str, EvidenceRow] = {}
        self.patterns: dict[str, Pattern] = {}
        self.refusals: list[dict[str, Any]] = []
        self.inaccurate_roots: set[tuple[str, str]] = set()
        self.entities = EntityRegistry()
        self.links: dict[tuple[str, str], ContradictionLink] = {}
        self._partners: dict[str, dict[str, tuple[str, str]]] = {}
        self._by_root: dict[tuple[str, str], list[str]] = {}
        self._by_text: dict[tuple[str, str | None], list[str]] = {}
        self._by_subject: dict[str, list[str]] = {}
        # Per belief, its live rows by family: re-evaluating costs the belief's families, not its rows.
        self._tallies: dict[str, BeliefTallies] = {}
        self._text_index = TokenIndex()
        self._pattern_index = TokenIndex()
        self._ids: tuple[int, dict[str, int]] = (0, {})
        # fingerprint_of every belief, kept as each entry changes them (what the graph's Fingerprint node holds)
        self.running_fingerprint = RunningBeliefFingerprint()

    # ---- the Domain contract -------------------------------------------------------------

    def handles(self, op: str) -> bool:
        return op in OPS

    def plan(self, op: str, payload: dict[str, Any]) -> Draft:
        """Validate a client request against the current state (no change) and return its entry."""
        return plan(self, op, payload)

    def apply(self, entry: Entry) -> Applied:
        """Apply one committed entry (planned by `plan`); deterministic in the entries so far."""
        handler = {
            "belief.create": self._apply_create,
            "belief.refused": self._apply_refused,
            "evidence.add": self._apply_evidence_add,
            "evidence.retract": self._apply_evidence_retract,
            "belief.pin": self._apply_pin,
            "belief.contradict": self._apply_contradict,
            "belief.correct": self._apply_correct,
            "belief.associate": self._apply_associate,
        }.get(entry.op)
        if handler is None:
            raise ValueError(f"the belief layer does not apply {entry.op!r}")
        change = Change(entry)
        handler(change, entry.payload)
        return self._finish(change)

    def roots_gone(self, root_kind: str, root_ids: Iterable[str], entry: Entry) -> Applied:
        """Retract every evidence row resting on these roots (an item retracted, an observation
        marked inaccurate, a belief rejected) within `entry`, and re-evaluate what rested on them."""
        change = Change(entry)
        self.drop_roots(change, root_kind, root_ids, f"{ROOT_GONE_REASON}: {root_kind} gone in entry {entry.seq}")
        return self._finish(change)

    def roots_back(self, root_kind: str, root_ids: Iterable[str], entry: Entry,
                   present: Callable[[str, str], bool]) -> Applied:
        """Within `entry`, make live again every row that went with one of these roots when every root
        it cites is `present` again (an item that fell and was asserted again), and re-evaluate."""
        change = Change(entry)
        affected: list[str] = []
        roots = list(dict.fromkeys(root_ids))
        read_ahead(self._by_root, [(root_kind, root) for root in roots])  # a partial map reads them in one round
        for root in roots:
            for evidence_id in self._by_root.get((root_kind, root), ()):
                evidence = self.rows[evidence_id]
                if evidence.retracted and (evidence.retract_reason or "").startswith(ROOT_GONE_REASON) \
                        and all(present(evidence.root_kind or root_kind, r) for r in evidence.root_ids):
                    self.touch(change, evidence.belief, f"evidence {evidence.id} live again: its roots are back")
                    evidence.retracted, evidence.retracted_seq, evidence.retract_reason = False, None, None
                    self._tally(change, evidence, live=True)
                    change.changed_rows[evidence.id] = None
                    affected.append(evidence.belief)
        self.settle(change, affected)
        return self._finish(change)

    def evidence_from_statement(self, specs: Iterable[dict[str, Any]], entry: Entry) -> Applied:
        """Within a `statement.say` entry, turn its evidence specs into evidence rows (SPEC 3.5);
        each spec dict gains the `belief` and `evidence` ids it became."""
        change = Change(entry)
        from_statements.apply_statement_evidence(self, change, specs)
        return self._finish(change)

    # ---- queries ---------------------------------------------------------------------------

    def fingerprint_rows(self) -> list[tuple[str, str, float]]:
        """(id, status, confidence rounded to 1e-9) per belief, sorted by id."""
        return sorted(fingerprint_row(b.node_props()) for b in self.beliefs.values())

    def evidence_of(self, belief_id: str) -> list[EvidenceRow]:
        return [self.rows[r] for r in self.beliefs[belief_id].evidence]

    def find_belief(self, proposition: str, subject: str | None) -> Belief | None:
        """The live (not superseded) belief holding exactly this proposition about this subject."""
        for belief_id in self._by_text.get(duplicate_key(proposition, subject), ()):
            if self.beliefs[belief_id].superseded_by is None:
                return self.beliefs[belief_id]
        return None

    def refusing_pattern(self, proposition: str) -> Pattern | None:
        """The first do-not-infer pattern this proposition matches (same polarity, Jaccard ≥ 0.7)."""
        sig = signature(proposition)
        for pattern_id in self._pattern_index.similar(sig.tokens, DO_NOT_INFER_JACCARD):
            if self.patterns[pattern_id].signature.negated == sig.negated:
                return self.patterns[pattern_id]
        return None

    def signature_of(self, belief_id: str) -> Signature:
        """A belief's proposition as words and polarity: what contradiction detection compares."""
        return self.beliefs[belief_id].signature

    def linked(self, a: str, b: str) -> bool:
        link = self.links.get(_pair(a, b))
        return link is not None and link.active

    def partners(self, belief_id: str) -> list[str]:
        """Beliefs actively contradicting this one."""
        return sorted(p for p, key in self._partners.get(belief_id, {}).items() if self.links[key].active)

    def is_live(self, belief: Belief) -> bool:
        return belief.status not in (REJECTED, SUPERSEDED)

    # ---- building blocks (also used by corrections) -----------------------------------------

    def new_id(self, prefix: str, seq: int) -> str:
        current, counters = self._ids
        if current != seq:
            counters = {}
            self._ids = (seq, counters)
        counters[prefix] = counters.get(prefix, 0) + 1
        return f"{prefix}{seq}.{counters[prefix]}"

    def snapshot(self, belief: Belief) -> dict[str, Any]:
        return {"status": belief.status, "confidence": belief.confidence, "version": belief.version}

    def touch(self, change: Change, belief_id: str, reason: str) -> None:
        change.touch(belief_id, reason, self.snapshot(self.beliefs[belief_id]))

    def create_belief(
        self, change: Change, proposition: str, subject: str | None, kind: str, origin: str, reason: str
    ) -> Belief:
        belief_id = self.new_id("b", change.seq)
        breakdown = assess(kind, [])
        belief = Belief(
            id=belief_id,
            proposition=proposition,
            subject=subject,
            epistemic_kind=kind,
            signature=signature(proposition),
            created_seq=change.seq,
            created_by=change.entry.by,
            breakdown=breakdown,
            status=derive_status(breakdown),
            entity=self.entities.entity(subject),
            origin=origin,
        )
        self.beliefs[belief_id] = belief
        self._tallies[belief_id] = BeliefTallies()
        known_empty(self._partners, belief_id)  # a new belief contradicts nothing and nothing rests on it yet
        known_empty(self._by_root, ("belief", belief_id))
        self._text_index.add(belief_id, belief.signature.tokens)
        self._by_text.setdefault(duplicate_key(proposition, subject), []).append(belief_id)
        if subject is not None:
            self._by_subject.setdefault(subject, []).append(belief_id)
        change.created.append(belief_id)
        change.touch(belief_id, reason, None)
        change.event("belief_created", belief=belief_id)
        return belief

    def add_row(
        self, change: Change, belief_id: str, row: dict[str, Any], origin: str, reason: str
    ) -> EvidenceRow:
        """Attach one evidence row (in its journal form) to a belief; not yet re-evaluated."""
        evidence = EvidenceRow(
            id=self.new_id("e", change.seq),
            belief=belief_id,
            direction=row["direction"],
            weight=row["weight"],
            credibility=row["credibility"],
            derivation=row["derivation"],
            family=row["family"],
            provenance_status=row.get("provenance_status", RECORDED),
            root_kind=row.get("root_kind"),
            root_ids=tuple(row.get("root_ids", ())),
            origin=origin,
            created_seq=change.seq,
            actor=row.get("actor"),
            note=row.get("note"),
        )
        self.touch(change, belief_id, reason)
        self.rows[evidence.id] = evidence
        self.beliefs[belief_id].evidence.append(evidence.id)
        self._tally(change, evidence, live=True)
        if evidence.root_kind is not None:
            for root in evidence.root_ids:
                self._by_root.setdefault((evidence.root_kind, root), []).append(evidence.id)
        change.new_rows.append(evidence.id)
        if evidence.root_kind == "belief" and origin != ORIGIN_CONTRADICTION:
            for root in evidence.root_ids:
                if evidence.direction == FOR:
                    change.edges.append(EdgeMerge("SUPPORTS", "Belief", root, "Belief", belief_id))
                if evidence.derivation in DERIVED_DERIVATIONS:
                    change.edges.append(EdgeMerge("DERIVED_FROM", "Belief", belief_id, "Belief", root))
        return evidence

    def retract_row(self, change: Change, evidence: EvidenceRow, reason: str) -> None:
        self.touch(change, evidence.belief, f"evidence {evidence.id} retracted")
        if not evidence.retracted:
            self._tally(change, evidence, live=False)
        evidence.retracted = True
        evidence.retracted_seq = change.seq
        evidence.retract_reason = reason
        change.changed_rows[evidence.id] = None
        change.retracted_rows.append(evidence.id)

    def rests_on(self, root_kind: str, root_id: str) -> bool:
        """Does any live evidence row rest on this root?"""
        return any(not self.rows[e].retracted for e in self._by_root.get((root_kind, root_id), ()))

    def drop_roots(self, change: Change, root_kind: str, root_ids: Iterable[str], reason: str) -> None:
        """Retract the live rows resting on these roots and settle what they bore on.

        Only an operator's "inaccurate" correction also bars the root from future evidence
        (`inaccurate_roots`); an item another domain retracts may be written again later, and
        whether it is present when cited is that domain's to check.
        """
        affected: list[str] = []
        roots = list(dict.fromkeys(root_ids))
        read_ahead(self._by_root, [(root_kind, root) for root in roots])  # a partial map reads them in one round
        for root in roots:
            for evidence_id in self._by_root.get((root_kind, root), ()):
                evidence = self.rows[evidence_id]
                if not evidence.retracted:
                    self.retract_row(change, evidence, reason)
                    affected.append(evidence.belief)
        self.settle(change, affected)

    def remember_pattern(self, pattern: Pattern) -> None:
        self.patterns[pattern.id] = pattern
        self._pattern_index.add(pattern.id, pattern.signature.tokens)

    def beliefs_about(self, subject: str) -> list[str]:
        return list(self._by_subject.get(subject, ()))

    def settle(self, change: Change, seeds: Iterable[str]) -> None:
        """Re-evaluate the seeds and whatever their changes reach, until nothing moves.

        A belief newly rejected retracts the rows rooted in it (each row once); a moved confidence
        re-weights the counter rows it casts on its contradiction partners, at most
        MAX_PROPAGATIONS times per belief per entry (see contradiction.py for why this stops).
        """
        queue: deque[str] = deque()
        queued: set[str] = set()

        def push(belief_id: str) -> None:
            if belief_id not in queued:
                queued.add(belief_id)
                queue.append(belief_id)

        for seed in seeds:
            push(seed)
        while queue:
            belief_id = queue.popleft()
            queued.discard(belief_id)
            belief = self.beliefs[belief_id]
            was = belief.status
            self._evaluate(belief)
            if belief.status == REJECTED and was != REJECTED:
                for evidence_id in self._by_root.get(("belief", belief_id), ()):
                    evidence = self.rows[evidence_id]
                    if not evidence.retracted:
                        self.retract_row(change, evidence, f"rests on rejected belief {belief_id}")
                        push(evidence.belief)
            if change.propagations.get(belief_id, 0) < MAX_PROPAGATIONS:
                moved = self._reweigh_counters(change, belief)
                if moved:
                    change.propagations[belief_id] = change.propagations.get(belief_id, 0) + 1
                    for partner in moved:
                        push(partner)

    def detect_contradictions(self, change: Change, belief_id: str) -> list[str]:
        """Link the belief with every live, same-entity belief stating its content with flipped polarity."""
        belief = self.beliefs[belief_id]
        if not self.is_live(belief):
            return []
        found = []
        for other_id in contradiction_candidates(belief.signature, self._text_index, self.signature_of, belief_id):
            other = self.beliefs[other_id]
            if (
                self.is_live(other)
                and self._comparable(belief, other)
                and not self.linked(belief_id, other_id)
            ):
                self.link(change, belief_id, other_id, "detected")
                found.append(other_id)
        if found:
            self.settle(change, [belief_id, *found])
        return found

    def link(self, change: Change, a: str, b: str, how: str) -> None:
        """Make each belief counter-evidence for the other, weighted by the other's confidence."""
        rows = {}
        for owner, source in ((a, b), (b, a)):
            row = {
                "direction": "against",
                "weight": self.beliefs[source].confidence,
                "credibility": COUNTER_CREDIBILITY,
                "derivation": COUNTER_DERIVATION,
                "family": counter_family(source),
                "root_kind": "belief",
                "root_ids": [source],
            }
            rows[owner] = self.add_row(change, owner, row, ORIGIN_CONTRADICTION, f"contradicts {source}").id
        key = _pair(a, b)
        self.links[key] = ContradictionLink(a, b, rows, change.seq, how)
        self._partners.setdefault(a, {})[b] = key
        self._partners.setdefault(b, {})[a] = key
        change.edges.append(EdgeMerge("CONTRADICTS", "Belief", a, "Belief", b, {"how": how, "active": True}))
        change.event("contradiction_detected", a=a, b=b, how=how)

    def unlink(self, change: Change, a: str, b: str, reason: str) -> None:
        link = self.links[_pair(a, b)]
        link.active = False
        for evidence_id in link.rows.values():
            if not self.rows[evidence_id].retracted:
                self.retract_row(change, self.rows[evidence_id], reason)
        change.edges.append(EdgeMerge("CONTRADICTS", "Belief", link.a, "Belief", link.b, {"active": False}))
        change.event("contradiction_withdrawn", a=link.a, b=link.b)

    def comparable(self, a: Belief, b: Belief) -> bool:
        return self._comparable(a, b)

    # ---- internals -------------------------------------------------------------------------

    def _comparable(self, a: Belief, b: Belief) -> bool:
        return a.entity is None or b.entity is None or a.entity == b.entity

    def _evaluate(self, belief: Belief) -> None:
        belief.breakdown = assess_tallies(belief.epistemic_kind, self._tallies[belief.id])
        belief.status = derive_status(
            belief.breakdown, pinned=belief.pinned, superseded=belief.superseded_by is not None
        )

    def _tally(self, change: Change, evidence: EvidenceRow, *, live: bool) -> None:
        """Count a row that became live into its belief's tallies, or take one that stopped out; the change
        projects the count of its value (Tally nodes)."""
        tallies = self._tallies[evidence.belief]
        value = evidence.as_value()
        if live:
            tallies.add_rows(value)
        else:
            try:
                tallies.remove_row(value)
            except ValueError as exc:
                raise RuntimeError(f"evidence {evidence.id} left a tally its belief does not have") from exc
        change.counted[(evidence.belief, value)] = None

    def _reweigh_counters(self, change: Change, belief: Belief) -> list[str]:
        moved = []
        for partner, key in sorted(self._partners.get(belief.id, {}).items()):
            link = self.links[key]
            evidence = self.rows[link.rows[partner]]
            if not link.active or evidence.retracted or abs(evidence.weight - belief.confidence) <= TOLERANCE:
                continue
            self.touch(change, partner, f"counter-evidence from {belief.id} re-weighed")
            self._tally(change, evidence, live=False)
            evidence.weight = belief.confidence
            self._tally(change, evidence, live=True)
            change.changed_rows[evidence.id] = None
            moved.append(partner)
        return moved

    def _finish(self, change: Change) -> Applied:
        for belief_id in change.touched:
            belief = self.beliefs[belief_id]
            belief.version += 1
            belief.updated_seq = change.seq
            if belief_id not in change.created:
                change.event("belief_updated", belief=belief_id)
            self.running_fingerprint.replace(belief_id, change.before[belief_id], self.snapshot(belief))
        result = {
            "op": change.entry.op,
            "seq": change.seq,
            "created": list(change.created),
            "evidence": list(change.new_rows),
            "retracted_evidence": list(change.retracted_rows),
            "beliefs": {
                b: {"before": change.before[b], "after": self.snapshot(self.beliefs[b])}
                for b in change.touched
            },
            "events": list(change.events),
            **change.result,
        }
        return Applied(project(self, change) if self.projecting else Projection(), result)

    # ---- operations ------------------------------------------------------------------------

    def _apply_create(self, change: Change, payload: dict[str, Any]) -> None:
        pattern = self.refusing_pattern(payload["proposition"])
        if pattern is not None:
            self._apply_refused(change, {**payload, "pattern": pattern.id})
            return
        belief = self.create_belief(
            change,
            payload["proposition"],
            payload.get("subject"),
            payload["epistemic_kind"],
            ORIGIN_CLIENT,
            "created",
        )
        for row in payload.get("evidence", []):
            self.add_row(change, belief.id, row, ORIGIN_CLIENT, "evidence added")
        seeds = [belief.id]
        old_id = payload.get("supersedes")
        if old_id is not None:
            self.touch(change, old_id, f"superseded by {belief.id}")
            self.beliefs[old_id].superseded_by = belief.id
            change.event("belief_superseded", belief=old_id, by=belief.id)
            seeds.append(old_id)
        self.settle(change, seeds)
        self.detect_contradictions(change, belief.id)
        change.result["belief"] = belief.id

    def _apply_refused(self, change: Change, payload: dict[str, Any]) -> None:
        record = {
            "seq": change.seq,
            "proposition": payload["proposition"],
            "pattern": payload["pattern"],
            "by": change.entry.by,
        }
        self.refusals.append(record)
        change.event("inference_refused", proposition=payload["proposition"], pattern=payload["pattern"])
        change.result["refused"] = record

    def _apply_evidence_add(self, change: Change, payload: dict[str, Any]) -> None:
        evidence = self.add_row(change, payload["belief"], payload, ORIGIN_CLIENT, "evidence added")
        self.settle(change, [evidence.belief])
        if evidence.direction == FOR:
            self.detect_contradictions(change, evidence.belief)

    def _apply_evidence_retract(self, change: Change, payload: dict[str, Any]) -> None:
        evidence = self.rows[payload["evidence"]]
        self.retract_row(change, evidence, payload.get("reason") or f"retracted by {change.entry.by}")
        self.settle(change, [evidence.belief])

    def _apply_pin(self, change: Change, payload: dict[str, Any]) -> None:
        belief = self.beliefs[payload["belief"]]
        status = payload["status"]
        self.touch(change, belief.id, f"pinned {status}" if status else "unpinned")
        belief.pinned = status
        self.settle(change, [belief.id])

    def _apply_contradict(self, change: Change, payload: dict[str, Any]) -> None:
        self.link(change, payload["a"], payload["b"], "proposed")
        self.settle(change, [payload["a"], payload["b"]])

    def _apply_correct(self, change: Change, payload: dict[str, Any]) -> None:
        corrections.apply_correction(self, change, payload)

    def _apply_associate(self, change: Change, payload: dict[str, Any]) -> None:
        generation.apply_association(self, change, payload)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)
