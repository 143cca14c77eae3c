"""What the belief layer's cascade reads (graph_service.beliefs.partial), read from the graph as of a position:
the state a write or an `impact` that holds no copy of the store runs the cascade on.

What is read is the store as the journal left it at the position, whatever is written meanwhile: a belief nothing
past the position wrote is read as its node and rows are now (every change of a row writes its belief in the same
entry), with the counts of its live rows' values that the graph keeps (its Tally nodes), not its rows one by one, as
a belief that collects evidence has rows in proportion to the store; any other record is folded from its node's
history up to the position (graph_service.history: the WROTE edges' changes). A belief is read with its tallies, its
counter rows, the rows resting on it and its contradiction links (four indexed statements for a batch of beliefs,
two more for those folded, which come with every row); a root's rows are read with their beliefs. A link's `active`
flag is the edge's now (an edge keeps no history of its properties): the cascade reads a link only through its
counter rows, and a withdrawn link's rows were retracted with it for good (BeliefState.unlink; only a row resting on
an item comes back), so the flag does not change what a cascade does at any position.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from graph_service.beliefs.as_of import props_then
from graph_service.beliefs.confidence import tally_counted
from graph_service.beliefs.partial import (
    BELIEFS,
    BY_ROOT,
    LINKS,
    PARTNERS,
    ROWS,
    TALLIES,
    belief_of_props,
    creation_order,
    links_of,
    row_of_props,
    tallies_of,
    value_of_tally,
)
from graph_service.beliefs.records import EvidenceRow
from graph_service.beliefs.vocabulary import ORIGIN_CONTRADICTION
from graph_service.history import HistoryMissing
from graph_service.storage.port import GraphPort

# The rows resting on a root of each kind, one level down, each row with its history.
ROOT_STEPS = {"item": "belief_item_dependents_step_upto", "observation": "belief_observation_dependents_step_upto",
              "belief": "belief_belief_dependents_step_upto"}


# How many entries past a read's position `beliefs_written_after` looks at. A write's reads see the few entries
# other writers landed meanwhile; a bulk load's run reads as of the position its batches in flight passed (at most
# a few hundred entries); past this many every belief read is folded from its history, as for a read of the past.
PAST_ENTRIES_LOOKED_AT = 1024


class BeliefPartsFromGraph:
    """The parts of the belief layer as of position `upto` that beliefs.partial asks for, read from the graph's
    history (`answer`, a partial_reads.Answer). Each part is read once and kept."""

    def __init__(self, graph: GraphPort, upto: int, tallies_kept: bool = True) -> None:
        """`tallies_kept`: does the store's graph keep the Tally nodes (projection.KEEPS_BELIEF_TALLIES)? Without
        them every belief is read folded from its history."""
        self.graph, self.upto, self.tallies_kept = graph, upto, tallies_kept
        self._parts: dict[str, dict[Any, Any]] = defaultdict(dict)
        self._sent: dict[str, dict[Any, Any]] = defaultdict(dict)

    def answer(self, part: str, key: Hashable) -> dict[str, dict[Any, Any]]:
        """What the layer holds at `key` of `part` (None: nothing there), with what the cascade reads next:
        with a belief its tallies, counter rows, links and the rows resting on it (read_beliefs); with a root's rows
        their beliefs.
        Only what this read brought is sent (a row is sent with its belief or its root: alone, NeedMore)."""
        self._sent = defaultdict(dict)
        if part in self._parts and key in self._parts[part]:
            self._sent[part][key] = self._parts[part][key]
        elif part == BY_ROOT:
            kind, root = key  # type: ignore[misc]
            self._rows_on(kind, [root])
            self.read_beliefs({row.belief for row in self._rows_resting_on(key)})
        elif part in (BELIEFS, TALLIES, PARTNERS):
            self.read_beliefs([key])  # type: ignore[list-item]
        elif part == LINKS:
            self.read_beliefs(list(key))  # type: ignore[arg-type]
            if key not in self._parts[LINKS]:
                self._put(LINKS, key, None)
        elif part != ROWS:
            raise ValueError(f"{part!r} is not a part of the belief layer")
        return self._sent

    def forget(self) -> None:
        """Forget what was read: for a source whose reader's states hold what it gave them (they read no key twice)."""
        self._parts.clear()

    def _put(self, part: str, key: Hashable, value: Any) -> None:
        """Keep what was read at `key` of `part` and send it with this answer; what was read first stays."""
        if key not in self._parts[part]:
            self._parts[part][key] = self._sent[part][key] = value

    def _rows_resting_on(self, key: Hashable) -> list[EvidenceRow]:
        return [self._parts[ROWS][r] for r in self._parts[BY_ROOT].get(key) or ()]

    def _rows(self, rows: Iterable[Mapping[str, Any]]) -> dict[str, list[EvidenceRow]]:
        """The rows of a step's result written by `upto`, as they were then, by the node they were reached from."""
        found: dict[str, list[EvidenceRow]] = defaultdict(list)
        for row in rows:
            if row["since"] is None:
                raise HistoryMissing(self.upto)
            props = props_then(row["writes"], self.upto) if row["since"] <= self.upto else None
            if props is not None:
                found[row["via"]].append(row_of_props(props))
        return found

    def _rows_on(self, kind: str, roots: list[str]) -> None:
        """The rows resting on these roots (BY_ROOT), in the order they were made."""
        by_root = self._rows(self.graph.run(ROOT_STEPS[kind], {"asked": {"frontier": roots}, "upto": self.upto}))
        for root in roots:
            rows = sorted(by_root.get(root, ()), key=lambda r: creation_order(r.id))
            for row in rows:
                self._put(ROWS, row.id, row)
            self._put(BY_ROOT, (kind, root), [r.id for r in rows])

    def read_beliefs(self, ids: Iterable[str]) -> None:
        """Read those of these beliefs not read yet, each with what settling it reads, in four statements, and two
        more for those written past `upto` (a writer's entry landing meanwhile, or a read of the past): a belief
        nothing past `upto` wrote comes as it is now, with the counts of its live rows' values (its Tally nodes) and its
        counter rows, not with every row bearing on it (beliefs_counted_now, then beliefs_written_after); one written
        past it comes as it was then, with every row folded from their histories."""
        wanted = sorted(set(ids) - set(self._parts[BELIEFS]))
        if not wanted:
            return
        asked = {"ids": wanted}
        now = {row["id"]: row for row in self.graph.run("beliefs_counted_now", {
            "asked": asked, "counter_origin": ORIGIN_CONTRADICTION})}
        written = self._written_past() if self.tallies_kept else None
        folded = [b for b in wanted if b in now and (written is None or b in written)]
        folded_ids = set(folded)
        writes: dict[str, list[dict[str, Any]]] = defaultdict(list)
        own: dict[str, list[EvidenceRow]] = {}
        if folded:
            for row in self.graph.run("belief_histories_upto", {"ids": folded, "upto": self.upto}):
                if row["label"] == "Belief":
                    writes[row["id"]].append(row)
            own = self._rows(self.graph.run("belief_evidence_step_upto", {"asked": {"frontier": folded},
                                                                          "upto": self.upto}))
        self._rows_on("belief", wanted)
        edges: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for edge in self.graph.run("belief_contradictions", {"ids": wanted}):
            if edge["since"] is None:
                raise HistoryMissing(self.upto)
            if edge["since"] <= self.upto:
                edges[edge["belief"]].append(edge)
        for belief_id in wanted:
            counted = None if belief_id in folded_ids else now.get(belief_id)
            props = dict(counted["now"]) if counted is not None else props_then(writes.get(belief_id, ()), self.upto)
            if props is None:  # not written by `upto`
                for part in (BELIEFS, TALLIES, PARTNERS):
                    self._put(part, belief_id, None)
                continue
            if counted is None:
                rows = own.get(belief_id, [])
                tallies = tallies_of(rows)
            else:
                rows = [_row_then(row_writes, self.upto) for row_writes in counted["counters"]]
                tallies = tally_counted((value_of_tally(group["value"]), group["rows"]) for group in counted["live"])
            for row in rows:
                self._put(ROWS, row.id, row)
            self._put(BELIEFS, belief_id, belief_of_props(props, rows, tallies))
            self._put(TALLIES, belief_id, tallies)
            partners, links = links_of(belief_id, rows, self._rows_resting_on(("belief", belief_id)),
                                       edges.get(belief_id, ()))
            self._put(PARTNERS, belief_id, partners)
            for key, link in links.items():
                self._put(LINKS, key, link)

    def _written_past(self) -> set[str] | None:
        """The beliefs the entries past `upto` wrote (beliefs_written_after, run after the read of them as they are
        now), or None when more entries lie past it than are looked at (a read of the distant past)."""
        past = self.graph.run("beliefs_written_after", {"upto": self.upto, "most": PAST_ENTRIES_LOOKED_AT})
        if len(past) >= PAST_ENTRIES_LOOKED_AT:
            return None
        return {belief for row in past for belief in row["beliefs"]}


def _row_then(writes: Iterable[Mapping[str, Any]], upto: int) -> EvidenceRow:
    """A row's record from its writes (all of them at or before `upto`); HistoryMissing when they do not say it."""
    props = props_then(writes, upto)
    if props is None:
        raise HistoryMissing(upto)
    return row_of_props(props)
