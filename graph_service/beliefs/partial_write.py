"""Every write of the belief layer (its operations, its planners, a statement's evidence, roots gone and back)
run on only what it reads, read as it reads it: the cascade's parts (graph_service.beliefs.partial) and what
a creation, a correction and an association read besides. Pure: what is read comes from a source the caller
gives (a function), never from a driver.

The parts besides the cascade's, each fetched whole for the key asked (graph_service.partial_reads):
- the beliefs holding a proposition about a subject (`TEXT`, keyed by planning.duplicate_key) and the beliefs
  about a subject (`SUBJECT`), in the order they were made; a creation adds to both blind (`BlindList`): it
  reads neither unless a rule asks;
- near matches of a proposition's tokens among the beliefs (`SIMILAR_BELIEFS`) and among the do-not-infer
  patterns (`SIMILAR_PATTERNS`), keyed by (sorted tokens, threshold): a source sends every key whose Jaccard
  with those tokens may reach the threshold, with its signature (more than match is fine: the index keeps those
  that do), and with a pattern its record (`PATTERNS`); a near match's polarity, which contradiction detection
  compares first, is its signature's, so a belief that does not contradict is not read;
- whether a root was marked inaccurate (`INACCURATE`, keyed by (root kind, root id));
- a subject's entity where an operator merged it (`ENTITY`; absent: the subject is its own), and, for a merge
  or a split of entities, which read the merges made so far, the whole registry (`ENTITIES`, at `REGISTRY`).
The running fingerprint starts from the store's sum before the entry (the caller's `base`), so the state
reports the sum after it as the whole layer's does.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from graph_service.beliefs.entities import EntityRegistry
from graph_service.beliefs.fingerprint import RunningBeliefFingerprint
from graph_service.beliefs.partial import BlindList, cascade_state
from graph_service.beliefs.state import BeliefState
from graph_service.beliefs.text import Signature, TokenIndex, jaccard
from graph_service.partial_reads import PartialMap, Reader

TEXT, SUBJECT, SIMILAR_BELIEFS, SIMILAR_PATTERNS = "by_text", "by_subject", "similar_beliefs", "similar_patterns"
PATTERNS, INACCURATE, ENTITY, ENTITIES = "patterns", "inaccurate", "entity", "entities"
REGISTRY = "registry"
"""The one key of ENTITIES: the registry as a whole."""

SimilarKey = tuple[tuple[str, ...], Fraction]


def similar_key(tokens: frozenset[str], threshold: Fraction) -> SimilarKey:
    """The key a near-match read of these tokens at this threshold is fetched at."""
    return tuple(sorted(tokens)), threshold


class PartialTokenIndex(TokenIndex):
    """A token index whose near matches are the store's, read at (tokens, threshold) (`part`: {key: signature}),
    and those of the keys added on this state (a run's may be thousands), found as a whole index finds them."""

    def __init__(self, part: str, reader: Reader | None) -> None:
        super().__init__()
        self.candidates = PartialMap(part, reader)
        self.signatures: dict[str, Signature] = {}  # of the near matches read so far

    def similar(self, tokens: frozenset[str], threshold: Fraction) -> list[str]:
        if not tokens:
            return []
        read: dict[str, Signature] = self.candidates.get(similar_key(tokens, threshold)) or {}
        self.signatures.update(read)
        found = {k for k, held in read.items() if jaccard(tokens, held.tokens) >= threshold}
        return sorted(found.union(super().similar(tokens, threshold)))  # and those added here, by their postings


class PartialSet(PartialMap):
    """A set of keys (a key present: True) read a key at a time, to which the rules add."""

    def add(self, key: Hashable) -> None:
        self[key] = True


class PartialEntities(EntityRegistry):
    """The entity registry as a write reads it: a subject's entity a key at a time (`ENTITY`); a merge or a split,
    which read the merges made so far, read the whole registry first (`ENTITIES`) and go on from a copy of it."""

    def __init__(self, reader: Reader | None) -> None:
        super().__init__()
        self._entity = PartialMap(ENTITY, reader)  # type: ignore[assignment]
        self.registry = PartialMap(ENTITIES, reader)
        self._whole = False

    def _read_whole(self) -> None:
        if not self._whole:
            registry: EntityRegistry = self.registry[REGISTRY]
            self._entity = dict(registry._entity)
            self._members = {entity: set(members) for entity, members in registry._members.items()}
            self._merges = list(registry._merges)
            self._whole = True

    def members(self, entity: str) -> set[str]:
        self._read_whole()
        return super().members(entity)

    def merge(self, keep: str, other: str) -> tuple[str, ...]:
        self._read_whole()
        return super().merge(keep, other)

    def split(self, a: str, b: str) -> tuple[str, ...]:
        self._read_whole()
        return super().split(a, b)


def _copied(value: Any) -> Any:
    # The rules change records in place; a source may keep what it read for the next state at its position
    # (a write's plan, then its application), so each state holds copies of its own.
    return None if value is None else copy.deepcopy(value)


def write_state(reader: Reader, base: tuple[int, int] = (0, 0), layer: type[BeliefState] = BeliefState
                ) -> BeliefState:
    """A belief state (a `layer`) on which any entry of the layer applies, and any of its requests plans, as on the
    whole layer at the same position, reading through `reader` only what the rules touch; `base`: the store's
    running fingerprint sum (digest sum, count) there."""
    state = cascade_state(reader, layer)
    for records in (state.beliefs, state.rows, state._tallies, state._partners, state.links):
        records.convert = _copied  # type: ignore[attr-defined]
    state._by_text = BlindList(TEXT, reader)
    state._by_subject = BlindList(SUBJECT, reader)
    text_index = state._text_index = PartialTokenIndex(SIMILAR_BELIEFS, reader)

    def signature_of(belief_id: str) -> Signature:
        # A near match's signature came with it: its belief is not read to know whether it contradicts.
        return text_index.signatures.get(belief_id) or state.beliefs[belief_id].signature

    state.signature_of = signature_of  # type: ignore[method-assign]
    state._pattern_index = PartialTokenIndex(SIMILAR_PATTERNS, reader)
    state.patterns = PartialMap(PATTERNS, reader)
    state.inaccurate_roots = PartialSet(INACCURATE, reader)  # type: ignore[assignment]
    entities = PartialEntities(reader)
    state.entities = entities
    state.running_fingerprint = RunningBeliefFingerprint(*base)
    reader.register({TEXT: state._by_text, SUBJECT: state._by_subject,
                     SIMILAR_BELIEFS: state._text_index.candidates, SIMILAR_PATTERNS: state._pattern_index.candidates,
                     PATTERNS: state.patterns, INACCURATE: state.inaccurate_roots, ENTITY: entities._entity,
                     ENTITIES: entities.registry})
    return state
