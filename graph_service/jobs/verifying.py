"""The whole check of a store (its chain, and the graph against a replay of it), in this process or in
a process of its own.

Why a process of its own for the service: see graph_service.jobs.apart. The service only takes the
verdict (JournalBroken from the first bad position, or writable again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph_service.beliefs.fingerprint import fingerprint_of as beliefs_fingerprint_of
from graph_service.jobs.projected_graph import ProjectedGraph
from graph_service.journal.audit import JournalAudit
from graph_service.journal.chain import Entry
from graph_service.journal.settled import read_settled
from graph_service.journal.store import Journal, VerifyReport
from graph_service.knowledge.fingerprint import fingerprint_of as items_fingerprint_of
from graph_service.state import StoreState, combined_fingerprint
from graph_service.storage.port import GraphPort


@dataclass(frozen=True)
class FullReport:
    """The chain check, plus whether the graph holds what a pure replay of the journal gives (every status
    and confidence, and every property of every node and edge the replay projects); `projection_difference` says
    the first place it does not, in words. `graph_fingerprint` is read from the graph only when a difference was
    found (None otherwise: every property the fingerprint covers was compared, and no node is over, so it is the
    replay's)."""

    chain: VerifyReport
    projection_ok: bool
    replay_fingerprint: str | None
    graph_fingerprint: str | None
    projection_difference: str | None = None

    @property
    def ok(self) -> bool:
        return self.chain.ok and self.projection_ok

    def as_json(self) -> dict[str, Any]:
        c = self.chain
        return {"chain": {"ok": c.ok, "checked": c.checked, "head_seq": c.head_seq, "first_bad": c.first_bad,
                          "reason": c.reason, "roots": {str(k): v.hex() for k, v in c.roots.items()}},
                "projection_ok": self.projection_ok, "replay_fingerprint": self.replay_fingerprint,
                "graph_fingerprint": self.graph_fingerprint, "projection_difference": self.projection_difference}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FullReport:
        c = data["chain"]
        chain = VerifyReport(c["ok"], c["checked"], c["head_seq"], c["first_bad"], c["reason"],
                             {int(k): bytes.fromhex(v) for k, v in c["roots"].items()})
        return cls(chain, data["projection_ok"], data["replay_fingerprint"], data["graph_fingerprint"],
                   data.get("projection_difference"))


def graph_fingerprint(graph: GraphPort) -> str:
    """The fingerprint of what the graph's nodes say (statuses and confidences as projected)."""
    items = items_fingerprint_of(graph.run("item_fingerprint_rows"))
    beliefs = beliefs_fingerprint_of(graph.run("belief_fingerprint_rows"))
    return combined_fingerprint(items, beliefs)


Compared = Callable[[int, int], None]  # (nodes and edges compared so far, how many there are to compare)


def verify_store(graph: GraphPort, journal: Journal, roots_at: Iterable[int] = (),
                 on_entry: Callable[[Entry], None] | None = None,
                 on_compare: Callable[[], None] | None = None,
                 on_compared: Compared | None = None) -> FullReport:
    """The chain is whole (checked before anything is trusted), and the projection equals a pure replay of
    the stored journal; the journal is read once, the replay running beside the check. An entry the
    replay cannot apply is reported at its position, never raised. `on_entry` sees each sound entry
    as it is checked (progress), `on_compare` is called when the graph's comparison begins, and `on_compared`
    after each batch it compares, with how many nodes and edges it has compared of how many (the total grows when
    it compares again what writes changed meanwhile). `journal` takes the verdict (see Journal.take_verdict)."""
    with ProjectedGraph() as projected:
        return _verify_into(graph, journal, projected, roots_at, on_entry, on_compare, on_compared)


# How many times verify's comparison checks and replays the entries written while it compares, before it judges what
# it reads: each time the graph moved on from the replay's position (verify runs beside the service's writes).
MAX_CATCH_UPS = 1_000
# How many times the graph's node counts are read while writes keep landing before verify says it could not count.
COUNT_READS = 20
# The labels whose nodes the fingerprint reads, with the statement that counts them.
COUNTED = (("Item", "item_node_count"), ("Belief", "belief_node_count"))


class _Stopped(Exception):
    """Catching up with the entries written meanwhile found the chain broken, or an entry the replay cannot apply."""

    def __init__(self, report: FullReport) -> None:
        super().__init__(report)
        self.report = report


def _verify_into(graph: GraphPort, journal: Journal, projected: ProjectedGraph, roots_at: Iterable[int],
                 on_entry: Callable[[Entry], None] | None, on_compare: Callable[[], None] | None,
                 on_compared: Compared | None) -> FullReport:
    state = StoreState()
    failed: list[tuple[int, str]] = []
    audit = JournalAudit(roots_at=roots_at)

    def apply(entry: Entry) -> None:
        if on_entry is not None:
            on_entry(entry)
        if failed:
            return
        try:
            projection = state.apply(entry).projection
        except Exception as exc:  # a forged entry whose hash is sound: report it, never crash
            failed.append((entry.seq, f"entry {entry.seq} cannot be applied: {type(exc).__name__}: {exc}"))
            return
        # Outside the try: a failure to keep it (a full temporary disk) is the verifier's, not the entry's.
        projected.feed(entry.seq, projection)

    def checked(chain: VerifyReport) -> VerifyReport:
        if not chain.ok:
            raise _Stopped(FullReport(chain, False, None, None))
        if failed:
            position, reason = failed[0]
            raise _Stopped(FullReport(VerifyReport(False, chain.checked, chain.head_seq, position, reason,
                                                   chain.roots), False, None, None))
        return chain

    try:
        chain = checked(journal.verify(on_entry=apply, roots_at=roots_at, audit=audit))
        catch_ups = 0

        def caught_up() -> bool:
            """What differs may be a write that landed after the replay's position: if one did, check and replay
            the entries written since and say so (the difference is then read again); False when none did, or
            after MAX_CATCH_UPS, so that what differs is the store's."""
            nonlocal chain, catch_ups
            if catch_ups >= MAX_CATCH_UPS or journal.settled_seq() == chain.head_seq:
                return False
            catch_ups += 1
            chain = checked(journal.verify(on_entry=apply, roots_at=roots_at, audit=audit))
            return True

        if on_compare is not None:
            on_compare()
        # Every property of every node and edge a replay makes, compared; then the nodes no entry made, counted.
        # Together they say the graph's fingerprint is the replay's without reading every item at once (a 9 s
        # statement at 10^6 items that every write would wait behind); it is read only to report a difference.
        touched_after: int | None = None
        passes_before = last = 0  # nodes and edges compared by the calls before, so progress only goes on

        def compared(done: int, total: int) -> None:
            nonlocal last
            last = done
            if on_compared is not None:
                on_compared(passes_before + done, passes_before + total)

        while True:
            difference = first_graph_difference(graph, projected, caught_up, lambda: chain.head_seq, compared,
                                                touched_after)
            passes_before, last = passes_before + last, 0
            counted_at = chain.head_seq
            if difference is None:
                difference = nodes_no_entry_made(graph, projected, lambda: chain.head_seq, caught_up)
            if difference is not None or chain.head_seq == counted_at:
                break
            touched_after = counted_at  # the count caught up with writes: what they wrote is compared too
        expected = state.fingerprint()
        actual = None if difference is None else _fingerprint_if_readable(graph)
        return FullReport(chain, difference is None, expected, actual, difference)
    except _Stopped as stopped:
        return stopped.report


def _fingerprint_if_readable(graph: GraphPort) -> str | None:
    """The graph's fingerprint, for a report of a difference; None when a node is too malformed to give one (a Belief
    node without a confidence): the difference names what is wrong, and verify never raises for what the store
    holds."""
    try:
        return graph_fingerprint(graph)
    except (TypeError, ValueError, KeyError):
        return None


def nodes_no_entry_made(graph: GraphPort, projected: ProjectedGraph, replayed_to: Callable[[], int],
                        caught_up: Callable[[], bool]) -> str | None:
    """Does the graph hold an Item or Belief node no entry made (the node comparison asks only for the replay's)?
    Each label's nodes are counted while no write lands (journal.settled), at the head's position p, and compared
    with the nodes the replay made up to p (it is caught up to p first if writes landed since it was). Nodes are
    never deleted, so equal counts, with every one of the replay's nodes found once, leave none over. The
    difference in words, or None."""
    for _ in range(COUNT_READS):
        counted = read_settled(graph, lambda: {label: graph.run(name)[0]["nodes"] for label, name in COUNTED})
        seq = counted.seq
        if counted.stuck and counted.head is not None:
            # Its projection stayed behind for settled.QUIET_SECONDS: waiting again would wait as long again.
            return (f"the graph's projection stayed at position {counted.head.get('projected')!r} of {seq!r} while "
                    "verify counted its nodes: verify again once the service has caught up")
        if not counted.settled or seq is None:
            continue
        while replayed_to() < seq:
            if not caught_up():
                return ("verify could not catch up with the writes landing while it counted the graph's nodes: "
                        "verify again when fewer writes land")
        for label, _name in COUNTED:
            made = projected.count_upto(label, seq)
            if counted.value[label] != made:
                return (f"the graph holds {counted.value[label]} {label} nodes at position {seq}, and a replay of the "
                        f"journal makes {made}: {abs(counted.value[label] - made)} "
                        f"{'made by no entry' if counted.value[label] > made else 'missing'}")
        return None
    return (f"writes kept landing during each of {COUNT_READS} counts of the graph's nodes, so verify could not check "
            "for nodes no entry made: verify again when fewer writes land")


def first_graph_difference(graph: GraphPort, projected: ProjectedGraph, caught_up: Callable[[], bool],
                           replayed_to: Callable[[], int], on_compared: Compared | None = None,
                           touched_after: int | None = None) -> str | None:
    """The first node, then edge, whose stored properties are not the ones a replay projects
    (ProjectedGraph), read back a batch at a time; None when every one is. `caught_up()`, asked when a batch
    differs: True when the replay has just caught up with writes that landed meanwhile (the batch is then read
    again, against it), False when what differs stands. `replayed_to()`: the replay's position; when it moved
    during a pass (writes caught up with), the nodes and edges those entries wrote are compared again, a pass
    after another, until one moves it no further, so that a node compared before a write changed it is compared
    as that write left it. `on_compared` as verify_store's. `touched_after`: compare only what the entries after
    that position wrote (None: every node and edge)."""
    compared = 0
    total = projected.size_touched_after(touched_after or 0)  # every entry's position is at least 1

    def done(batch: Mapping[str, list[Any]]) -> None:
        nonlocal compared
        compared += sum(len(named) for named in batch.values())
        if on_compared is not None:
            on_compared(compared, max(total, compared))

    while True:
        began = replayed_to()
        nodes_then_edges: tuple[tuple[Callable[..., Any], Callable[..., str | None], str], ...] = (
            (projected.node_batches, projected.first_node_difference, "projected_nodes_by_id"),
            (projected.edge_batches, projected.first_edge_difference, "projected_edges_by_ends"))
        for batches, first_difference, query in nodes_then_edges:
            for batch in batches(touched_after=touched_after):
                while (difference := first_difference(batch, graph.run(query, batch))):
                    if not caught_up():
                        return difference
                    projected.refresh_batch()
                done(batch)
        if replayed_to() == began:
            return None
        touched_after = began
        total = compared + projected.size_touched_after(began)


def verify_in_child(graph: GraphPort) -> FullReport:
    """`verify_store` of the store `graph` is connected to, run by a new Python process (see the module's
    docstring and graph_service.jobs.apart). ApartFailed (a RuntimeError), with the child's last words, if it
    cannot report."""
    from graph_service.jobs.apart import run_apart

    return FullReport.from_json(run_apart(graph, "verify"))
