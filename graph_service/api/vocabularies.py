"""GraphQL enums for the closed vocabularies, built from the domain's own tuples.

Each enum's GraphQL names are the domain's strings (`kind: fact`, `direction: against`), so a client
writes what the journal records and the results read the same; resolvers pass `.value` (a plain
`str`) on to the domain, so journal payloads stay byte-identical. A typo is now refused by validation,
before any resolver runs, instead of silently matching nothing or failing late.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

import strawberry
from graphql import GraphQLEnumType, GraphQLError, GraphQLSchema

from graph_service.beliefs import vocabulary as beliefs
from graph_service.beliefs.planning import INACCURATE_ROOTS, PINNABLE
from graph_service.knowledge import items
from graph_service.knowledge.records import FLAG_KINDS


def _closed(name: str, meanings: Mapping[str, str], values: Iterable[str], description: str) -> Any:
    # Built from the domain's tuples so the API can never drift from what the domain accepts; `str` as
    # mixin lets a member compare and hash equal to its string. `meanings` describes each value and must
    # name exactly the domain's, so a value added there fails here until it is described.
    order = tuple(values)
    assert set(meanings) == set(order), (name, sorted(set(meanings) ^ set(order)))
    enum = strawberry.enum(Enum(name, {v: v for v in order}, type=str), description=description)
    for value in enum.__strawberry_definition__.values:
        value.description = meanings[value.value]
    return enum


_STATUS_OF_BELIEF = {
    "contested": "Evidence against is at least half the discounted support and confidence is mid-range "
                 "(0.25-0.75).",
    "rejected": "Confidence below 0.15.",
    "hypothesis": "A belief of kind hypothesis without support or below 0.5.",
    "tentative": "Confidence below 0.7.",
    "likely": "Confidence below 0.85.",
    "accepted": "Confidence 0.85 or above.",
    "superseded": "Replaced by a newer proposition (set only by the superseding belief, never pinned).",
}
_ROOTS = {
    "observation": "An observation (a stream row or a message): obs-<seq>-<slot>.",
    "item": "A knowledge item: k-<hash>.",
    "belief": "Another belief: b<seq>.<n>.",
    "prediction": "A prediction the client names.",
    "operator": "An operator's statement.",
    "note": "A journal note.",
}

ItemKind = _closed("ItemKind", {
    "fact": "A statement of how things are; a fact's body is {s, r, o}, keyed by (scope, s, r).",
    "rule": "A rule that changes behaviour; promoted by the gates or held as a hypothesis.",
    "skill": "A skill that changes behaviour; promoted by the gates or held as a hypothesis.",
    "action": "An action that changes behaviour; promoted by the gates or held as a hypothesis.",
    "episode": "Something that happened; a finished episode never needs re-confirmation.",
}, items.KINDS, "What a knowledge item is.")
ItemSource = _closed("ItemSource", {
    "outcome": "What happened; it outranks every other source and refutes what stands on its key.",
    "person": "What a person said; outranks spec and verified.",
    "spec": "A specification; outranks verified.",
    "verified": "An answer given under a guarantee, naming the stored decision it is (`of`); ranks lowest.",
}, items.SOURCES, "Where an item came from, strongest first: outcome, person, spec, verified.")
ItemStatus = _closed("ItemStatus", {
    "active": "Present and a fact: it is given to decisions (unless stale).",
    "hypothesis": "Present but not a fact: not yet promoted, on a non-active premise, or under a pending flag.",
    "disputed": "An equally ranked item gives its key another value; never a fact until a person resolves it.",
    "refuted": "Displaced on its key by an outcome, a higher-ranked source, a superseding item or a resolution.",
    "expired": "Its reconfirm_after ran out on the store clock, or its producer retired it.",
    "retracted": "Taken back, or resting on a premise that was; kept, never deleted.",
}, items.STATUSES, "Where an item stands.")
EvidenceDirection = _closed("EvidenceDirection", {
    "for": "Supports the proposition.",
    "against": "Opposes the proposition.",
}, beliefs.DIRECTIONS, "Whether evidence supports or opposes.")
Derivation = _closed("Derivation", {
    "direct": "Primary: first-hand from its source (the default).",
    "assertion": "Primary: a statement's factual claim (say writes these).",
    "operator": "Primary: an operator said so (corrections write these).",
    "external": "Primary: from a system outside the service.",
    "prediction": "Primary: a prediction.",
    "consolidation": "Derived: a consolidation of what is already held.",
    "inference": "Derived: inferred from what is already held.",
    "reflection": "Derived: a reflection on what is already held.",
    "dream": "Derived: from an offline (dream) pass over what is already held.",
    "retrieval": "Derived: what is already held, retrieved again.",
}, beliefs.DERIVATIONS,
                     "How evidence came about: primary (direct, assertion, operator, external, prediction) or "
                     "derived (consolidation, inference, reflection, dream, retrieval). A derived row never adds "
                     "weight to a family that has a primary row.")
EpistemicKind = _closed("EpistemicKind", {
    "hypothesis": "A possible explanation; prior 0.25.",
    "assumption": "Taken as given without evidence; prior 0.4.",
    "opinion": "A judgement; prior 0.4.",
    "claim": "Something asserted; prior 0.5.",
    "observation": "Something observed; prior 0.6.",
    "memory": "Something remembered; prior 0.6.",
    "fact": "Something established; prior 0.8.",
}, beliefs.EPISTEMIC_KINDS, "What sort of proposition a belief is; it sets the prior.")
BeliefStatus = _closed("BeliefStatus", _STATUS_OF_BELIEF, beliefs.STATUSES,
                       "Where a belief stands: from its confidence, unless an operator pinned it.")
PinnableStatus = _closed("PinnableStatus", {s: _STATUS_OF_BELIEF[s] for s in PINNABLE}, PINNABLE,
                         "A status an operator may pin a belief at (not superseded, which only a superseding belief "
                         "sets).")
ProvenanceStatus = _closed("ProvenanceStatus", {
    "recorded": "Its provenance (family, roots, derivation) was recorded when it was written.",
    "legacy_unknown": "Written before provenance existed: its family is its source and no ancestry is invented.",
}, beliefs.PROVENANCE_STATUSES, "Whether an evidence row's provenance was recorded or is legacy_unknown.")
RootKind = _closed("RootKind", _ROOTS, beliefs.ROOT_KINDS, "What an evidence row rests on.")
InaccurateRootKind = _closed("InaccurateRootKind", {r: _ROOTS[r] for r in INACCURATE_ROOTS}, INACCURATE_ROOTS,
                             "What an operator may mark inaccurate.")
FlagKind = _closed("FlagKind", {
    "scope": "Raised over a scope pattern: it covers the items whose scope falls under it.",
    "ids": "Raised over item ids: it covers those items.",
    "key": "Raised over a key: it covers the items on that key.",
    "reconfirm": "Raised by reconfirmItem: it covers that one item.",
}, FLAG_KINDS, "What a flag was raised over: a scope pattern, item ids, a key, or one item's re-confirmation "
               "(reconfirmItem).")


def plain(value: Enum | None) -> str | None:
    """The domain's string for an enum member (None stays None)."""
    return None if value is None else str(value.value)


def plain_list(values: list[Any] | None) -> list[str] | None:
    """The domain's strings for a list of enum members (None stays None)."""
    return None if values is None else [str(v.value) for v in values]


# graphql-core says "Value 'factt' does not exist in 'ItemKind' enum." (validation or variable coercion).
UNKNOWN_VALUE = re.compile(r"does not exist in '(?P<enum>\w+)' enum\.")
# A variable's message says where in it: "Variable '$ev' has invalid value at [0].derivation: ...".
VARIABLE_AT = re.compile(r"^Variable '\$(?P<name>\w+)' (?:has|got) invalid value(?: at (?P<at>[\w.\[\]]+))?")


def name_allowed_values(error: GraphQLError, schema: GraphQLSchema, *, list_values: bool = True) -> None:
    """Make an unknown-enum-value error say what would do: the allowed values, a code, and (for a
    variable) where in it, as `ev[0].derivation`, like the `field` of the errors resolvers raise."""
    match = UNKNOWN_VALUE.search(error.message)
    if match is None or "Expected one of" in error.message:
        return
    enum = schema.get_type(match["enum"])
    if list_values and isinstance(enum, GraphQLEnumType):
        allowed = ", ".join(enum.values)
        error.message = error.message[: match.end()] + f" Expected one of {allowed}." + error.message[match.end():]
    extensions = dict(error.extensions or {})
    extensions.setdefault("code", "BAD_USER_INPUT")
    variable = VARIABLE_AT.match(error.message)
    if variable is not None:
        extensions.setdefault("field", variable["name"] + (variable["at"] or ""))
    error.extensions = extensions
