"""What a write of the belief layer reads besides the cascade's parts (graph_service.beliefs.partial_write), read
from the graph as of a position: the beliefs holding a text about a subject and those about a subject, the near
matches of a proposition's words among the beliefs and the do-not-infer patterns, the roots marked inaccurate,
a subject's entity and, for a merge or split of entities, the whole registry. The graph keeps each where an
index finds it (graph_service.projection, keeps version 3); what never changes once written (a belief's text,
subject and words, a pattern, a mark of inaccuracy) is read by its position, a subject's entity is folded from
its node's history.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Hashable, Iterable
from typing import Any

from graph_service.beliefs.as_of import props_then
from graph_service.beliefs.contradiction import CONTRADICTION_JACCARD
from graph_service.beliefs.corrections import DO_NOT_INFER_JACCARD
from graph_service.beliefs.entities import EntityRegistry
from graph_service.beliefs.partial import BY_ROOT, ROWS, creation_order, row_of_props
from graph_service.beliefs.partial_write import (
    ENTITIES,
    ENTITY,
    INACCURATE,
    PATTERNS,
    REGISTRY,
    SIMILAR_BELIEFS,
    SIMILAR_PATTERNS,
    SUBJECT,
    TEXT,
    similar_key,
)
from graph_service.beliefs.projecting import inaccurate_root_id
from graph_service.beliefs.records import Pattern
from graph_service.beliefs.text import probe_size, signature
from graph_service.from_graph.belief_parts import BeliefPartsFromGraph
from graph_service.storage.port import GraphPort

CORRECT = "belief.correct"
ENTITY_CORRECTIONS = ("same_entity", "different_entity")


def entities_from_corrections(corrections: Iterable[dict[str, Any]]) -> EntityRegistry:
    """The entity registry the belief layer holds after these `belief.correct` payloads, in journal order (only
    merges and splits change it; each was planned valid where it was written, so each applies)."""
    registry = EntityRegistry()
    for payload in corrections:
        if payload.get("kind") == "same_entity":
            registry.merge(payload["subject"], payload["other"])
        elif payload.get("kind") == "different_entity":
            registry.split(payload["subject"], payload["other"])
    return registry


class BeliefWritePartsFromGraph(BeliefPartsFromGraph):
    """Every part of the belief layer a write reads as of position `upto` (beliefs.partial_write), read from the
    graph: the cascade's as BeliefPartsFromGraph reads them, and the write's own. Each part is read once and kept."""

    def __init__(self, graph: GraphPort, upto: int, tallies_kept: bool = True) -> None:
        super().__init__(graph, upto, tallies_kept)
        self.statements = 0  # the write's own parts' statements (a test counts them)

    def answer(self, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
        readers = {TEXT: self._by_text, SUBJECT: self._about, SIMILAR_BELIEFS: self._near_matches,
                   SIMILAR_PATTERNS: self._near_matches, INACCURATE: self._inaccurate, ENTITY: self._entity,
                   ENTITIES: self._entities}
        if part == ROWS and key not in self._parts[ROWS]:  # a row named by a request, read with its belief
            self._sent = defaultdict(dict)
            self._row(key)
            return self._sent
        if part not in readers:
            if part == PATTERNS:  # sent with the near matches that name them, never asked for alone
                raise ValueError("a pattern is read with the near matches of a proposition")
            return super().answer(part, key)
        self._sent = defaultdict(dict)
        if key in self._parts[part]:
            self._sent[part][key] = self._parts[part][key]
        else:
            self.statements += 1
            readers[part](key)
        return self._sent

    def _run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.graph.run(name, {**params, "upto": self.upto})

    def _row(self, key: Any) -> None:
        self.statements += 1
        writes = [r for r in self._run("belief_histories_upto", {"ids": [key]}) if r["label"] == "Evidence"]
        props = props_then(writes, self.upto)
        if props is None:
            self._put(ROWS, key, None)
            return
        self.read_beliefs([props["belief"]])  # its rows, this one among them, and what settling it reads
        self._put(ROWS, key, row_of_props(props))

    def _by_text(self, key: Any) -> None:
        text, subject = key
        rows = self._run("beliefs_by_text_upto", {"keys": [{"text": text, "subject": subject}]})
        self._put(TEXT, key, sorted((r["id"] for r in rows), key=creation_order) or None)

    def _about(self, key: Any) -> None:
        rows = self._run("beliefs_about_upto", {"subjects": [key]})
        self._put(SUBJECT, key, sorted((r["id"] for r in rows), key=creation_order) or None)

    def answer_many(self, part: str, keys: list[Any]) -> dict[str, dict[Any, Any]]:
        """`answer` at several keys of a part in one round: the near matches of several propositions in one
        statement (a bulk load reads a window's propositions ahead: BeliefsFromGraph.read_ahead), the rows resting
        on several roots of a kind in one step, with their beliefs (an entry that takes several items' rows with
        them); a key read already is not read again."""
        if part == BY_ROOT:
            return self._rows_on_many(keys)
        if part not in (SIMILAR_BELIEFS, SIMILAR_PATTERNS):
            raise ValueError(f"{part!r} is not read several keys at once")
        self._sent = defaultdict(dict)
        wanted = list(dict.fromkeys(key[0] for key in keys if key not in self._parts[part]))  # each key's words
        if wanted:
            self.statements += 1
            self._near_matches_of(wanted)
        for key in keys:
            if key in self._parts[part]:
                self._sent[part][key] = self._parts[part][key]
        return self._sent

    def _rows_on_many(self, keys: list[Any]) -> dict[str, dict[Any, Any]]:
        self._sent = defaultdict(dict)
        self.statements += 1
        for kind in dict.fromkeys(kind for kind, _ in keys):
            roots = [root for k, root in keys if k == kind and (k, root) not in self._parts[BY_ROOT]]
            if roots:
                self._rows_on(kind, roots)
        self.read_beliefs({row.belief for key in keys for row in self._rows_resting_on(key)})
        for key in keys:
            if key in self._parts[BY_ROOT]:
                self._sent[BY_ROOT][key] = self._parts[BY_ROOT][key]
        return self._sent

    def _near_matches(self, key: Any) -> None:
        self._near_matches_of([key[0]])

    def _near_matches_of(self, propositions: list[tuple[str, ...]]) -> None:
        """The near matches of each proposition's words (a key's sorted tokens) among the beliefs (at the
        contradiction threshold) and the patterns (at the do-not-infer one), all in one statement: a creation reads
        both for its proposition."""
        reads = [{"at": at, "tokens": list(tokens),
                  "probe_beliefs": probe_size(frozenset(tokens), CONTRADICTION_JACCARD),
                  "probe_patterns": probe_size(frozenset(tokens), DO_NOT_INFER_JACCARD)}
                 for at, tokens in enumerate(propositions)]
        rows: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for row in self._run("near_matches_upto", {"reads": reads}):
            rows[row["at"]].append(row)
        for at, tokens in enumerate(propositions):
            words = frozenset(tokens)
            patterns = [Pattern(r["id"], r["proposition"], signature(r["proposition"]), r["seq"], r["by"])
                        for r in rows[at] if r["label"] == "Pattern"]
            for pattern in patterns:
                self._put(PATTERNS, pattern.id, pattern)
            self._put(SIMILAR_PATTERNS, similar_key(words, DO_NOT_INFER_JACCARD),
                      {p.id: p.signature for p in patterns})
            self._put(SIMILAR_BELIEFS, similar_key(words, CONTRADICTION_JACCARD),
                      {r["id"]: signature(r["proposition"]) for r in rows[at] if r["label"] == "Belief"})

    def _inaccurate(self, key: Any) -> None:
        root_kind, root_id = key
        rows = self._run("inaccurate_roots_upto", {"ids": [inaccurate_root_id(root_kind, root_id)]})
        self._put(INACCURATE, key, True if rows else None)

    def _entity(self, key: Any) -> None:
        props = props_then(self._run("subjects_history_upto", {"ids": [key]}), self.upto)
        self._put(ENTITY, key, None if props is None else props.get("entity"))

    def _entities(self, key: Any) -> None:
        # Read only for a merge or a split (an operator's act): every merge and split made by the position.
        rows = self._run("entries_of_op_upto", {"op": CORRECT})
        payloads = (json.loads(r["payload"]) for r in rows)
        self._put(ENTITIES, REGISTRY, entities_from_corrections(
            p for p in payloads if p.get("kind") in ENTITY_CORRECTIONS))
