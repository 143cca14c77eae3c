"""The store's records of items, assertions and flags, and how an item reads as Item node properties."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from graph_service.journal.chain import canonical_json
from graph_service.knowledge.items import id_key, scalar
from graph_service.knowledge.rules import (
    DisputeEvent,
    ItemFacts,
    ItemVerdict,
    LiveAssertion,
    PendingFlag,
    expiry_of,
)


@dataclass(frozen=True, slots=True)
class Asserted:
    """One assertion of an item as journalled, and the position it was retracted at (if it was)."""

    assertion: LiveAssertion
    retracted_at: int | None = None


# What a flag was raised over: a scope pattern, item ids, a key, or one item's re-confirmation.
FLAG_KINDS: tuple[str, ...] = ("scope", "ids", "key", "reconfirm")


@dataclass(slots=True)
class FlagRecord:
    """A staleness flag: what it covers, why, and whether it is still pending."""

    id: str
    seq: int
    kind: str
    why: str
    covers: set[str] = field(default_factory=set)
    pending: bool = True
    ended_at: int | None = None
    scope: dict[str, Any] | None = None
    key: str | None = None
    # Items it covers that a state holding only a region of the store leaves out (knowledge_at for `ids`):
    # counted, so the node's `covers` stays the whole flag's.
    covered_elsewhere: int = 0

    def props(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "why": self.why,
            "pending": self.pending,
            "raised_at": self.seq,
            "ended_at": self.ended_at,
            "scope": None if self.scope is None else canonical_json(self.scope),
            "key": self.key,
            "covers": len(self.covers) + self.covered_elsewhere,
        }


@dataclass(slots=True)
class ItemRecord:
    """Everything the store keeps about one item (by content id)."""

    id: str
    kind: str
    body: dict[str, Any]
    scope: dict[str, Any]
    key: str | None
    value: str
    learned_at: int
    # A tuple of frozen records, so a change is a new tuple: what `live()` caches is keyed by it.
    assertions: tuple[Asserted, ...] = ()
    promoted: bool = False
    held_why: str | None = None
    retired_at: int | None = None
    uses: int = 0
    wrong_uses: int = 0
    flags: set[str] = field(default_factory=set)
    verdict: ItemVerdict = field(default_factory=lambda: ItemVerdict("retracted"))
    props: dict[str, Any] | None = None
    # (the assertions tuple it was built from, the live assertions): see `live`.
    _live: tuple[tuple[Asserted, ...], tuple[LiveAssertion, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # (the live assertions it was built from, the premises they name): see `premises`.
    _live_premises: tuple[tuple[LiveAssertion, ...], tuple[str, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # The node properties what the item is (kind, body, scope, key) decides: see `materialise`.
    _fixed: tuple[Any, ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def status(self) -> str:
        return self.verdict.status

    def live(self) -> tuple[LiveAssertion, ...]:
        """Assertions not retracted, in journal order.

        Built once per change of `assertions`: evaluation asks for it many times per write (every
        unit-graph step reads its neighbours' liveness), and the tuple held in the cache cannot be
        changed in place nor freed, so an identical `assertions` is the same assertions."""
        cached = self._live
        if cached is None or cached[0] is not self.assertions:
            cached = (self.assertions, tuple(a.assertion for a in self.assertions if a.retracted_at is None))
            self._live = cached
        return cached[1]

    def add_assertion(self, assertion: LiveAssertion) -> None:
        """Record one more (live) assertion of the item, after those it has."""
        self.assertions = (*self.assertions, Asserted(assertion))

    def take_back(self, seq: int) -> None:
        """Retract every live assertion of the item at journal position `seq`."""
        self.assertions = tuple(
            Asserted(a.assertion, seq) if a.retracted_at is None else a for a in self.assertions
        )

    def premises(self, *, live_only: bool = True) -> list[str]:
        """Every item a (live) assertion of this one rests on, in order, without repeats.

        The live ones are built once per change of the live assertions (keyed as `live` is): a premise
        closure asks every item it passes, and a gate or a cycle check walks whole ancestries."""
        if not live_only:
            return list(dict.fromkeys(p for a in self.assertions for p in a.assertion.premises))
        live = self.live()
        cached = self._live_premises
        if cached is None or cached[0] is not live:
            cached = (live, tuple(dict.fromkeys(p for a in live for p in a.premises)))
            self._live_premises = cached
        return list(cached[1])

    def facts(self, flags: dict[str, FlagRecord]) -> ItemFacts:
        """The item as the state rules read it."""
        pending = sorted(
            (
                PendingFlag(f.id, f.seq, f.why)
                for f in (flags[i] for i in self.flags if i in flags)
                if f.pending
            ),
            key=lambda f: f.seq,
        )
        return ItemFacts(
            id=self.id,
            kind=self.kind,
            key=self.key,
            value=self.value,
            assertions=self.live(),
            promoted=self.promoted,
            held_why=self.held_why,
            retired_at=self.retired_at,
            flags=tuple(pending),
        )

    def materialise(self) -> dict[str, Any]:
        """The Item node properties: scalars and lists of scalars only."""
        verdict = self.verdict
        live = self.live()
        shown = verdict.best or (live[-1] if live else self.assertions[-1].assertion)
        valid = shown.valid or (None, None)
        if self._fixed is None:
            # Worked out once: an item's id is its content, so its kind, body and scope never change.
            body = self.body
            self._fixed = (
                scalar(body.get("s")),
                scalar(body.get("r")),
                scalar(body.get("o")),
                canonical_json(body),
                canonical_json(self.scope),
                f"{body['s']} {body['r']} {scalar(body.get('o'))}" if self.key is not None else self.kind,
                id_key(self.id),
            )
        s, r, o, body_json, scope_json, summary, key_of_id = self._fixed
        return {
            "id": self.id,
            "kind": self.kind,
            "s": s,
            "r": r,
            "o": o,
            "body": body_json,
            "scope": scope_json,
            "key": self.key,
            "summary": summary,
            "source": shown.source,
            "by": shown.by,
            "status": verdict.status,
            "rank": shown.rank,
            "support": list(verdict.support),
            "valid_since": scalar(valid[0]),
            "valid_until": scalar(valid[1]),
            "learned_at": self.learned_at,
            "confirmed_at": max((a.seq for a in live), default=None),
            "premises": self.premises(live_only=False),
            "promoted": self.promoted,
            "held_why": self.held_why,
            "reconfirm_after": shown.reconfirm_after,
            "expires_at": verdict.expires_at,
            # When its latest live assertion's re-confirmation period runs out (stale_reasons' clock rule),
            # indexed: what open questions read to find the items the clock made stale without a flag.
            "reconfirm_due": expiry_of(live),
            "id_key": key_of_id,  # a page of items by id reads windows of it (knowledge.items.id_key)
            "retired_at": self.retired_at,
            "stale": verdict.stale,
            "why": "; ".join(verdict.reasons),
            "uses": self.uses,
            "wrong_uses": self.wrong_uses,
        }


def dispute_id(event: DisputeEvent) -> str:
    """The id of one dispute event: its key and the journal position it opened at."""
    return "d-" + hashlib.sha256(event.key.encode("utf-8")).hexdigest()[:12] + "-" + str(event.opened_at)


def question_text(event: DisputeEvent) -> str:
    """The question a person is asked about a dispute, formulated from its key and values only."""
    scope, subject, relation = json.loads(event.key)
    where = f" (in {canonical_json(scope)})" if scope else ""
    return f"Which is right for {subject} {relation}{where}: {' or '.join(event.values)}?"


def display_value(value_json: str) -> str:
    """A value (canonical JSON) as a person reads it: text without its quotes, anything else as JSON."""
    try:
        value = json.loads(value_json)
    except ValueError:
        return value_json
    return value if isinstance(value, str) else value_json


def dispute_props(event: DisputeEvent, *, withdrawn: bool = False) -> dict[str, Any]:
    """The Dispute node properties of one dispute event."""
    return {
        "id": dispute_id(event),
        "key": event.key,
        "open": event.open and not withdrawn,
        "opened_at": event.opened_at,
        "closed_at": event.closed_at,
        # Browser shows and filters on `values` (a text value as its text); `values_json` is exact.
        "values": [display_value(v) for v in event.values],
        "values_json": list(event.values),
        "items": list(event.items),
        "resolved": event.resolved,
        "withdrawn": withdrawn,
        "question": question_text(event),
    }
