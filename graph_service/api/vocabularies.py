"""GraphQL enums for the closed vocabularies, built from the domain's own tuples.

Each enum's GraphQL names are the domain's strings (`kind: fact`, `direction: against`), so a client
writes what the journal records and the results read the same; resolvers pass `.value` (a plain
`str`) on to the domain, so journal payloads stay byte-identical. A typo is now refused by validation,
before any resolver runs, instead of silently matching nothing or failing late.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from typing import Any

import strawberry
from graphql import GraphQLEnumType, GraphQLError, GraphQLSchema

from graph_service.beliefs import vocabulary as beliefs
from graph_service.beliefs.planning import INACCURATE_ROOTS, PINNABLE
from graph_service.knowledge import items
from graph_service.knowledge.records import FLAG_KINDS


def _closed(name: str, values: Iterable[str], description: str) -> Any:
    # Built from the domain's tuples so the API can never drift from what the domain accepts; `str` as
    # mixin lets a member compare and hash equal to its string.
    return strawberry.enum(Enum(name, {v: v for v in values}, type=str), description=description)


ItemKind = _closed("ItemKind", items.KINDS, "What a knowledge item is.")
ItemSource = _closed("ItemSource", items.SOURCES, "Where an item came from, strongest first: outcome, person, "
                                                  "spec, verified.")
ItemStatus = _closed("ItemStatus", items.STATUSES, "Where an item stands.")
EvidenceDirection = _closed("EvidenceDirection", beliefs.DIRECTIONS, "Whether evidence supports or opposes.")
Derivation = _closed("Derivation", beliefs.DERIVATIONS,
                     "How evidence came about: primary (direct, assertion, operator, external, prediction) or "
                     "derived (consolidation, inference, reflection, dream, retrieval).")
EpistemicKind = _closed("EpistemicKind", beliefs.EPISTEMIC_KINDS, "What sort of proposition a belief is; "
                                                                    "it sets the prior.")
BeliefStatus = _closed("BeliefStatus", beliefs.STATUSES, "Where a belief stands.")
PinnableStatus = _closed("PinnableStatus", PINNABLE, "A status an operator may pin a belief at (not superseded, "
                                                     "which only a superseding belief sets).")
ProvenanceStatus = _closed("ProvenanceStatus", beliefs.PROVENANCE_STATUSES,
                           "Whether an evidence row's provenance was recorded or is legacy_unknown.")
RootKind = _closed("RootKind", beliefs.ROOT_KINDS, "What an evidence row rests on.")
InaccurateRootKind = _closed("InaccurateRootKind", INACCURATE_ROOTS, "What an operator may mark inaccurate.")
FlagKind = _closed("FlagKind", FLAG_KINDS, "What a flag was raised over: a scope pattern, item ids, a key, or "
                                           "one item's re-confirmation (reconfirmItem).")

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
