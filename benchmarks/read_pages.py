"""The first page of the list reads, as the store grows: whether a page costs what it shows or what the
store holds (issue 10: "a page of beliefs ordered by confidence must not sort every belief").

    .venv/bin/python -m benchmarks.read_pages [--sizes 10000 30000] [--rounds 30] [--first 20]

For each size a store of the realistic mix (benchmarks.service_shape.mix) is bulk-loaded; then, round
after round, the sizes interleaved, each read below is timed in-process on the embedded server:

- beliefs, most confident first, the page as the service reads it (read_pages.belief_page_now: windows
  of confidence read by the index on Belief.confidence), and the same statement over one window that
  holds every belief (what the service read before: it sorts every belief);
- the totalCount beside it (belief_count), which reads every belief the filter selects;
- items, the page as the service reads it (read_pages.item_ids_by_key_windows: windows of id keys by the
  index on Item.id_key), by the index on Item.id (items_page: FalkorDB sorts every item it selects), its
  count (items_count), and the page as the service cut it from its in-memory state before
  (read_pages.item_page);
- the open disputes' page as the service reads it (read_pages.dispute_page_now: windows of the positions
  they opened at, by the index on Dispute.opened_at), the same statement over one window that holds every
  open dispute (what it read before: it sorts every open one), and the count beside it; the flags' page the
  same way (read_pages.flag_page_now, and flags_page over one window);
- the open questions ranked (questions.ranking.open_question_rows) with the knowledge read from the graph
  (from_graph.targets.GraphTargets: what is open and what it stands on) and from the whole in-memory state
  (StateTargets: every item looked at), the questions from the state in both;
- the fingerprint now as the service reads it (fingerprint_as_of.fingerprints_kept: the two running sums on
  the Fingerprint nodes), and the beliefs' part as it was computed before (every belief's row, sorted and
  hashed in memory);
- `impact` of retracting one item that evidence rests on (a fixed sample, the same item for both in a
  round): read from the graph (impact_from_graph: scratch states that read what the change reaches) and
  on the whole in-memory state (impact.store_impact, what the service answered before);
- `recall` of the observer with the most rows (top 5 at a tick past its last): from the graph's nodes
  (stream_types.recall_now, what the service reads: each weight's newest and first written rows), from every
  row of the observer's on the graph (what it read before) and from the in-memory stream state (before that);
- `changes` from position 1,000 to 1,010 (the first page of 20 nodes): each node's writes up to 1,010
  (node_history_upto, what the service reads) and its whole history (node_history, what it read before),
  folded as the service folds them;
- a raw one-node read (head_read): the round trip every figure includes.

It prints each figure's median per size and its growth from the smallest size to the largest; the bar
for a page is growth <= 1.2x (a count reads what it counts, and is reported, not gated).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.service_shape import LOADER, LOADING, mix
from graph_service.api.history_types import node_change
from graph_service.api.read_pages import (
    belief_page_now,
    dispute_page_now,
    flag_page_now,
    item_ids_by_key_windows,
    item_page,
)
from graph_service.api.stream_types import recall_now
from graph_service.beliefs.fingerprint import fingerprint_row
from graph_service.config import Settings
from graph_service.fingerprint_as_of import fingerprints_kept
from graph_service.from_graph.impact import impact_from_graph
from graph_service.from_graph.knowledge_region import KnowledgeRead
from graph_service.from_graph.targets import GraphTargets
from graph_service.impact import store_impact
from graph_service.journal.chain import canonical_json
from graph_service.questions.ranking import open_question_rows
from graph_service.questions.targets import StateTargets
from graph_service.service import Service
from graph_service.storage.port import GraphPort
from graph_service.stream import recall
from graph_service.stream.as_of import stream_now

GROWTH_BAR = 1.2
EVERY_KEY = 10**18  # a window past both ends of the confidence keys: every belief in one statement
NO_FILTER = {"status": None, "subject": None, "kind": None}
NO_ITEM_FILTER = {"ids": None, "key": None, "s": None, "r": None, "kinds": None, "statuses": None,
                  "source": None, "by": None}
WINDOW_ITEM_FILTER = {k: v for k, v in NO_ITEM_FILTER.items() if k != "ids"}


def impact_sample(service: Service, seed: int, size: int = 8) -> list[str]:
    """Live items some live evidence row rests on (any live item in a store with none), a fixed random sample:
    what `impact` is asked of."""
    state = service.state
    rooted = {r for row in state.beliefs.rows.values() if row.root_kind == "item" and not row.retracted
              for r in row.root_ids if state.present("item", r)}
    pool = sorted(rooted) or sorted(i for i, rec in state.knowledge.items.items() if rec.live())  # a tiny store
    return random.Random(seed).sample(pool, min(size, len(pool)))


def reads(service: Service, first: int, seed: int = 7) -> dict[str, Callable[[], Any]]:
    """Each read the benchmark times, by name: the pages (gated), the counts, the items page as the service
    cut it from its in-memory state before (read_pages.item_page), impact both ways and the raw read."""
    graph = service.graph
    stream = service.state.stream
    busiest = max((o.id for o in stream.observers()), key=lambda o: (len(stream.observations(o)), o))
    on_graph, in_memory = itertools.cycle(impact_sample(service, seed)), itertools.cycle(impact_sample(service, seed))
    return {
        "beliefs page (windows)": lambda: belief_page_now(graph, NO_FILTER, descending=True, after_key=None,
                                                         after_id=None, limit=first + 1),
        "beliefs page (every belief)": lambda: graph.run("belief_page_confidence_desc", {
            **NO_FILTER, "after_key": None, "after_id": None, "from_key": -EVERY_KEY, "to_key": EVERY_KEY,
            "limit": first + 1}),
        "beliefs count": lambda: graph.run("belief_count", NO_FILTER),
        "items page (windows)": lambda: item_ids_by_key_windows(graph, WINDOW_ITEM_FILTER, "", 0, first + 1),
        "items page (id index)": lambda: graph.run("items_page", {**NO_ITEM_FILTER, "after": "", "limit": first + 1}),
        "items count": lambda: graph.run("items_count", NO_ITEM_FILTER),
        "items page (in memory)": lambda: item_page(service.state.knowledge, {}, first, None),
        "disputes page (windows)": lambda: [e.opened_at for _, e in dispute_page_now(
            graph, first, None, service.journal.seq).rows],
        "disputes page (one window)": lambda: [r["dispute"]["opened_at"] for r in graph.run(
            "open_disputes_page", {"from_key": 0, "to_key": EVERY_KEY, "limit": first + 1})][:first],
        "disputes count": lambda: graph.run("open_disputes_count", {}),
        "flags page (windows)": lambda: [f.seq for _, f in flag_page_now(
            graph, None, first, None, service.journal.seq).rows],
        "flags page (one window)": lambda: [r["flag"]["raised_at"] for r in graph.run(
            "flags_page", {"from_key": 0, "to_key": EVERY_KEY, "pending": None, "limit": first + 1})][:first],
        "open questions (graph)": lambda: open_question_rows(
            GraphTargets(graph, KnowledgeRead(graph, service.journal.seq)), service.state.questions),
        "open questions (in memory)": lambda: open_question_rows(StateTargets(service.state.knowledge),
                                                                 service.state.questions),
        "fingerprint now": lambda: fingerprints_kept(graph, service.journal.seq),
        "fingerprint (every belief)": lambda: every_belief_hashed(service),
        "impact (graph)": lambda: impact_from_graph(graph, service.journal.seq, [next(on_graph)]),
        "impact (in memory)": lambda: store_impact(service.state, [next(in_memory)]),
        "recall (graph)": lambda: recall_now(service, busiest, 10**9, 5, 50.0, 1.0, 1.0),
        "recall (every row)": lambda: recall(stream_now(graph.run("observer_stream", {"observer": busiest}), busiest),
                                             10**9, 5, 50.0, 1.0, 1.0),
        "recall (in memory)": lambda: service.state.stream.recall(busiest, 10**9, 5, 50.0, 1.0, 1.0),
        "changes (up to `to`)": lambda: changes_page(graph, "node_history_upto", first),
        "changes (whole histories)": lambda: changes_page(graph, "node_history", first),
        "raw read": lambda: graph.run("head_read"),
    }


CHANGES = (1_000, 1_010)  # the positions `changes` is asked between: the same entries at every size


def changes_page(graph: GraphPort, history: str, first: int) -> list[Any]:
    """The first page of `changes(from, to)` over CHANGES, each node folded by the service's own fold
    (history_types.node_change) from `history`: read up to `to` (node_history_upto), or whole (node_history)."""
    start, end = CHANGES
    return [node_change(graph.run(history, {"id": node["id"], **({"upto": end} if "upto" in history else {})}),
                        node, start, end)
            for node in graph.run("nodes_written_between", {"from": start, "to": end})[:first]]


def every_belief_hashed(service: Service) -> str:
    """The beliefs' fingerprint as the service computed it before it kept a running sum: every belief's
    (id, status, confidence) sorted and hashed."""
    rows = sorted(fingerprint_row(b.node_props()) for b in service.state.beliefs.beliefs.values())
    return hashlib.sha256(canonical_json([list(r) for r in rows]).encode("utf-8")).hexdigest()


GATED = ("beliefs page (windows)", "items page (windows)", "disputes page (windows)", "flags page (windows)",
         "fingerprint now")
# Open questions are not gated: they rank every open target, and the mix's open targets grow with the store.
# Nor recall: the server sorts every row of the observer (to keep each weight's newest and first written), and the
# mix's observers gain rows as the store grows.
# Impact is not gated: what a retraction reaches in the mix grows with the store (its components do).


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--first", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="read-pages-"))
    services: dict[int, Service] = {}
    figures: dict[tuple[str, int], list[float]] = defaultdict(list)
    try:
        for size in args.sizes:
            service = Service.open(Settings(data_dir=root / f"store-{size}", **LOADING))
            started = time.perf_counter()
            service.journal.write_batch(LOADER, mix(service, size, args.seed), batch_size=500)
            print(f"loaded {size:,} entries in {time.perf_counter() - started:.0f} s: "
                  f"{len(service.state.beliefs.beliefs):,} beliefs, {len(service.state.knowledge.items):,} items",
                  file=sys.stderr)
            services[size] = service
        timed = {size: reads(service, args.first, args.seed) for size, service in services.items()}
        for size, named in timed.items():  # the two belief pages agree, so the figures compare like with like
            assert named["beliefs page (windows)"]() == named["beliefs page (every belief)"](), size
            assert named["fingerprint now"]() == services[size].state.fingerprints(), size
            assert named["items page (windows)"]() == [r["id"] for r in named["items page (id index)"]()], size
            assert named["open questions (graph)"]() == named["open questions (in memory)"](), size
            assert named["disputes page (windows)"]() == named["disputes page (one window)"](), size
            assert named["recall (graph)"]() == named["recall (in memory)"]() == named["recall (every row)"](), size
            assert named["changes (up to `to`)"]() == named["changes (whole histories)"](), size
            for item in impact_sample(services[size], args.seed):
                assert impact_from_graph(services[size].graph, services[size].journal.seq, [item]) == store_impact(
                    services[size].state, [item]), (size, item)
        for _ in range(args.rounds):
            for size, named in timed.items():
                for name, read in named.items():
                    started = time.perf_counter()
                    read()
                    figures[(name, size)].append((time.perf_counter() - started) * 1e3)
    finally:
        for service in services.values():
            service.close()
    small, large = min(args.sizes), max(args.sizes)
    failed = False
    for name in timed[small]:
        medians = {size: statistics.median(figures[(name, size)]) for size in args.sizes}
        growth = medians[large] / medians[small]
        gated = name in GATED
        met = growth <= GROWTH_BAR
        failed |= gated and not met
        print(f"{name:>28}: " + ", ".join(f"{medians[s]:.2f} ms at {s:,}" for s in args.sizes)
              + f"; {large:,} over {small:,}: {growth:.2f}x"
              + (f" (bar <= {GROWTH_BAR}x: {'met' if met else 'NOT met'})" if gated else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
