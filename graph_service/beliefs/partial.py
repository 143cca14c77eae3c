"""The belief layer's cascade (roots gone, roots back, and the settling of what rested on them) run on only
what it reads, read as it reads it. Pure: what is read comes from a source the caller gives (a function),
never from a driver.

What the cascade reads, each part fetched whole for the key asked (graph_service.partial_reads):
- the rows resting on a root (`BY_ROOT`, keyed by (root kind, root id)), each row's record (`ROWS`);
- a belief's record (`BELIEFS`), the family tallies of its live rows (`TALLIES`, what re-assessing it reads),
  its contradiction partners (`PARTNERS`) and each link (`LINKS`, keyed as BeliefState keys them).
A source sends with a belief its tallies, its links, the rows resting on it and those of its own rows the links
read (what settling it reads next; its other rows only where it has them at hand, as a belief that collects
evidence has rows in proportion to the store), and with a root's rows their beliefs, so a cascade reads about one
round trip a level.

Nothing else of the layer is read by the cascade (the text and pattern indexes, the entities, the refusals):
those maps have no reader, and reading them raises NeedMore, so a caller learns at once that an operation
needs more than this state gives. The records are built from node properties by the functions below, so the
state a cascade runs on is the whole layer's at those keys (tests/integration/test_impact_from_graph.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from graph_service.beliefs.confidence import (
    BeliefTallies,
    EvidenceValue,
    FamilyKey,
    FamilyTally,
    assess_tallies,
    tally_rows,
)
from graph_service.beliefs.records import Belief, ContradictionLink, EvidenceRow
from graph_service.beliefs.state import BeliefState, _pair
from graph_service.beliefs.text import signature
from graph_service.beliefs.vocabulary import ORIGIN_CONTRADICTION, RECORDED
from graph_service.partial_reads import PartialMap, Reader, _as_list

BELIEFS, ROWS, BY_ROOT, TALLIES, PARTNERS, LINKS = "beliefs", "rows", "by_root", "tallies", "partners", "links"
CASCADE_PARTS = (BELIEFS, ROWS, BY_ROOT, TALLIES, PARTNERS, LINKS)


def creation_order(row_id: str) -> tuple[int, int]:
    """Where a row id (`e<seq>.<n>`, BeliefState.new_id) falls in the order rows were made: by position, then
    by its count within the entry."""
    seq, _, n = row_id[1:].partition(".")
    return int(seq), int(n)


def row_of_props(props: Mapping[str, Any]) -> EvidenceRow:
    """An evidence row's record from its Evidence node's properties (EvidenceRow.node_props; a property the
    node lacks was null)."""
    return EvidenceRow(
        id=props["id"], belief=props["belief"], direction=props["direction"], weight=props["weight"],
        credibility=props["credibility"], derivation=props["derivation"], family=props["family"],
        provenance_status=props.get("provenance_status", RECORDED), root_kind=props.get("root_kind"),
        root_ids=tuple(props.get("root_ids") or ()), origin=props["origin"], created_seq=props["created_seq"],
        actor=props.get("actor"), note=props.get("note"), retracted=bool(props.get("retracted")),
        retracted_seq=props.get("retracted_seq"), retract_reason=props.get("retract_reason"))


def tallies_of(rows: Iterable[EvidenceRow]) -> BeliefTallies:
    """The family tallies of a belief's live rows, as BeliefState keeps them (a tally is the same whichever
    order its rows came and went in: confidence.FamilyTally)."""
    return tally_rows(row.as_value() for row in rows if not row.retracted)


def value_of_tally(value: str) -> EvidenceValue:
    """The value a Tally node counts, from its `value` property (beliefs.projecting.tally_value)."""
    return EvidenceValue(**json.loads(value))


def belief_of_props(props: Mapping[str, Any], rows: Iterable[EvidenceRow],
                    tallies: Mapping[FamilyKey, FamilyTally] | None = None) -> Belief:
    """A belief's record from its Belief node's properties (Belief.node_props) and every row bearing on it:
    its breakdown re-assessed from the live rows' tallies (what the layer's own keeps), its rows in the order
    they were made. Given the `tallies` (from the belief's Tally nodes), the rows need not be all of them: the record's
    `evidence` then lists only those given (see Belief.evidence)."""
    kept = sorted(rows, key=lambda r: creation_order(r.id))
    return Belief(
        id=props["id"], proposition=props["proposition"], subject=props.get("subject"),
        epistemic_kind=props["epistemic_kind"], signature=signature(props["proposition"]),
        created_seq=props["created_seq"], created_by=props["created_by"],
        breakdown=assess_tallies(props["epistemic_kind"], tallies_of(kept) if tallies is None else tallies),
        status=props["status"],
        entity=props.get("entity"), version=props.get("version", 0), pinned=props.get("pinned_status"),
        superseded_by=props.get("superseded_by"), updated_seq=props.get("updated_seq", 0),
        origin=props.get("origin", "client"), evidence=[r.id for r in kept])


def _counter_row(rows: Iterable[EvidenceRow], owner: str, source: str) -> EvidenceRow | None:
    # The latest counter row `owner` received from `source`: a link made again after it was withdrawn has new rows.
    found = [r for r in rows if r.belief == owner and r.origin == ORIGIN_CONTRADICTION and r.root_ids == (source,)]
    return max(found, key=lambda r: creation_order(r.id), default=None)


LinkKey = tuple[str, str]


def links_of(belief_id: str, own_rows: Iterable[EvidenceRow], rows_on_it: Iterable[EvidenceRow],
             edges: Iterable[Mapping[str, Any]]) -> tuple[dict[str, LinkKey], dict[LinkKey, ContradictionLink]]:
    """A belief's contradiction partners ({partner: link key}) and its links, from its CONTRADICTS edges (each
    with `partner`, `a`: the end it was made from, `how`, `active`), the rows bearing on it and the rows
    resting on it (a link's counter rows: the one it received and the one it cast)."""
    own, on_it = list(own_rows), list(rows_on_it)
    partners: dict[str, LinkKey] = {}
    links: dict[LinkKey, ContradictionLink] = {}
    for edge in edges:
        partner = edge["partner"]
        received, cast = _counter_row(own, belief_id, partner), _counter_row(on_it, partner, belief_id)
        if received is None or cast is None:
            continue
        key = _pair(belief_id, partner)
        b = partner if edge["a"] == belief_id else belief_id
        partners[partner] = key
        rows = {belief_id: received.id, partner: cast.id}
        # in the order the link made them (a's first): withdrawing a link retracts its rows in that order
        links[key] = ContradictionLink(edge["a"], b, {edge["a"]: rows[edge["a"]], b: rows[b]},
                                       received.created_seq, edge["how"], bool(edge["active"]))
    return partners, links


class BlindList(PartialMap):
    """An index of ids by a key, in the order they were made, that a creation appends to without reading it:
    an append to a key not read yet goes into a list of its own, put after the store's when the key is read
    (what this state makes is newer than anything the store held)."""

    def __init__(self, part: str, reader: Reader | None) -> None:
        super().__init__(part, reader, _as_list)
        self._blind: dict[Any, list[Any]] = {}

    def absorb(self, found: Mapping[Any, Any]) -> None:
        super().absorb({k: [*(v or ()), *self._blind.pop(k, [])] for k, v in found.items() if k not in self.known})

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self.known:
            return self._blind.setdefault(key, [] if default is None else default)
        return super().setdefault(key, default)


def cascade_state(reader: Reader, layer: type[BeliefState] = BeliefState) -> BeliefState:
    """A belief state (a `layer`) whose records, rows, tallies, links and rows by root are read through `reader` as
    the cascade asks for them (BeliefState.roots_gone, roots_back, settle); the rest has no reader (NeedMore).
    Its running fingerprint counts only the changes made on it."""
    state = layer()
    state.beliefs = PartialMap(BELIEFS, reader)
    state.rows = PartialMap(ROWS, reader)
    state._by_root = BlindList(BY_ROOT, reader)  # a new row on a root is appended blind: read only by a cascade
    state._tallies = PartialMap(TALLIES, reader)
    state._partners = PartialMap(PARTNERS, reader)
    state.links = PartialMap(LINKS, reader)
    for name in ("patterns", "_by_text", "_by_subject"):
        setattr(state, name, PartialMap(name, None))
    reader.register({BELIEFS: state.beliefs, ROWS: state.rows, BY_ROOT: state._by_root, TALLIES: state._tallies,
                     PARTNERS: state._partners, LINKS: state.links})
    return state
