"""Knowledge-store retraction benchmark: exactness, and cost against component size and store size.

    .venv/bin/python -m benchmarks.knowledge_retraction [--items 10000] [--retractions 1000]
        [--big 100000] [--big-retractions 300] [--big-check-every 10] [--seed 7] [--state graph|memory]

Builds synthetic stores of facts on an embedded FalkorDB through the public bulk path (`Journal.write_batch`):
clusters of items whose sizes spread from 1 to a few hundred, items derived from 2-3 recent items of their
cluster (premise DAGs full of diamonds), and keys shared within a cluster by items from different sources (so
writes confirm, refute and dispute). Cluster sizes do not depend on the store's size, so the small and the big
store hold components of the same sizes. Each store is then opened as `make serve` opens it (`--state graph`:
the service holds no state, a write reads from the graph what it touches) and random live items are retracted
one at a time through the service's write path (`Journal.write` of `Service.plan_knowledge`'s `plan_retract`: the
compare-and-set append, the rules on what the write read, the one projection statement), the two stores taking
turns. Each retraction is timed, and checked for exactness: the service's knowledge fingerprint equals the
fingerprint of the journal replayed without the retracted item. At the end the projection must equal a replay
(`Service.verify`). The median retraction time of components of the same size is compared between the two
stores: the bar (issue 10) is at most 1.2x, for cost grows with the component a write touches, not with the
store.

Progress goes to stderr; the report to stdout.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.service_shape import DOMAINS, LOADING
from graph_service.config import Settings
from graph_service.digest_sum import combine
from graph_service.domain import Draft
from graph_service.journal.chain import Entry
from graph_service.knowledge import planning
from graph_service.knowledge.fingerprint import counts_in_fingerprint, row_digest
from graph_service.knowledge.items import content_id, key_of
from graph_service.knowledge.ops import subject_of
from graph_service.knowledge.replay import rebuild
from graph_service.knowledge.state import KnowledgeState
from graph_service.service import Service
from graph_service.state import replay
from graph_service.storage.falkordb_adapter import FalkorDBGraph

# Component-size buckets of the report: (lowest, highest or None, label).
BUCKETS: tuple[tuple[int, int | None, str], ...] = (
    (1, 1, "1"),
    (2, 5, "2-5"),
    (6, 20, "6-20"),
    (21, 100, "21-100"),
    (101, None, "101+"),
)
# Cluster sizes: (smallest, largest, share of the items in clusters of that range).
CLUSTER_MIX: tuple[tuple[int, int, float], ...] = (
    (1, 1, 0.06),
    (2, 5, 0.17),
    (6, 20, 0.30),
    (21, 100, 0.35),
    (101, 200, 0.12),
)
RELATIONS = ("brand", "colour", "size", "maker", "place")
WINDOW = 8  # premises are chosen among this many most recent items of the cluster
P_DERIVED = 0.85  # an item after the first two rests on premises with this probability
P_COMPETE = 0.15  # an item takes the key of an earlier item of its cluster, with another value
P_CONFIRM = 0.05  # after an item, another source re-asserts an earlier item of the cluster
BELIEF_EVERY = 10  # about one belief resting on items per this many items of a cluster
FRESH_SOURCES = (("person", 0.7), ("spec", 0.15), ("outcome", 0.15))
COMPETING_SOURCES = (("person", 0.45), ("outcome", 0.1), ("spec", 0.45))
RATIO_BAR = 1.2  # issue 10: the big store's p50 within 1.2x of the small one's, for equal component sizes
MIN_SAMPLES = 10  # a bucket is judged only with at least this many retractions at both sizes
LOADER = "loader"


# --- the synthetic store ------------------------------------------------------------------------


def _pick(rng: random.Random, weighted: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def cluster_sizes(n: int, rng: random.Random) -> list[int]:
    """Cluster sizes summing to n, with CLUSTER_MIX's share of the items in each size range."""
    ranges = [(lo, hi) for lo, hi, _ in CLUSTER_MIX]
    # A range is drawn per cluster with weight share / mean size, so items end up in the shares.
    means = [_log_uniform_mean(lo, hi) for lo, hi in ranges]
    weights = [share / mean for (_, _, share), mean in zip(CLUSTER_MIX, means, strict=True)]
    sizes: list[int] = []
    left = n
    while left > 0:
        lo, hi = rng.choices(ranges, weights)[0]
        size = lo if lo == hi else round(math.exp(rng.uniform(math.log(lo), math.log(hi))))
        size = min(max(size, lo), left)
        sizes.append(size)
        left -= size
    return sizes


def _log_uniform_mean(lo: int, hi: int) -> float:
    return float(lo) if lo == hi else (hi - lo) / math.log(hi / lo)


@dataclass
class Synthetic:
    """The proposals of a synthetic store, in load order, and what they add up to."""

    proposals: list[dict[str, Any]]
    item_ids: list[str]  # distinct items, in the order they were first written
    clusters: list[int]
    cluster_of: dict[str, int] = field(default_factory=dict)  # item id -> its cluster
    derived: int = 0
    competing: int = 0
    confirming: int = 0
    premise_edges: int = 0


def synthesise(n: int, seed: int) -> Synthetic:
    """n distinct fact items in clusters (plus re-assertions that confirm), deterministic in seed.

    Keys and premises never leave their cluster, so clusters are unions of components. An item on
    an earlier item's key (a challenger) is never a premise of a later one, so a refutation does not
    take the rest of its cluster down with it. A derived item never takes a key its premises
    (transitively) hold, so the consistency gate admits every proposal.
    """
    rng = random.Random(seed)
    sizes = cluster_sizes(n, rng)
    syn = Synthetic([], [], sizes)
    value_counter = 0
    for c, size in enumerate(sizes):
        ids: list[str] = []  # this cluster's items, in order
        bodies: list[dict[str, Any]] = []
        closure_keys: list[frozenset[str]] = []  # keys an item rests on, its own included
        supports: list[int] = []  # the items later ones may rest on (challengers are not)
        for i in range(size):
            premises: list[int] = []
            if len(supports) >= 2 and rng.random() < P_DERIVED:
                recent = supports[-WINDOW:]
                premises = rng.sample(recent, min(len(recent), rng.choice((2, 2, 3))))
            rests_on = frozenset().union(*(closure_keys[p] for p in premises))
            if i >= 1 and rng.random() < P_COMPETE:
                other = bodies[rng.randrange(i)]
                value_counter += 1
                body = {"s": other["s"], "r": other["r"], "o": f"v{value_counter}"}
                source = _pick(rng, COMPETING_SOURCES)
                if key_of(body, {}) in rests_on:  # it would defeat its own support: a root instead
                    premises, rests_on = [], frozenset()
                syn.competing += 1
            else:
                supports.append(i)
                value_counter += 1
                body = {"s": f"c{c}:e{i}", "r": rng.choice(RELATIONS), "o": f"v{value_counter}"}
                source = _pick(rng, FRESH_SOURCES)
            item_id = content_id("fact", body, {})
            syn.proposals.append({
                "kind": "fact", "body": body, "source": source,
                "derived_from": [ids[p] for p in premises],
            })
            syn.derived += bool(premises)
            syn.premise_edges += len(premises)
            ids.append(item_id)
            bodies.append(body)
            closure_keys.append(rests_on | {key_of(body, {})})
            syn.item_ids.append(item_id)
            syn.cluster_of[item_id] = c
            if i >= 1 and rng.random() < P_CONFIRM:
                j = rng.randrange(i + 1)
                syn.proposals.append({"kind": "fact", "body": dict(bodies[j]), "source": "outcome",
                                      "derived_from": []})
                syn.confirming += 1
    return syn


# --- the reference: a pure replay of the journal, cluster by cluster ---------------------------------

_KNOWLEDGE_OPS = KnowledgeState()  # asked only which operations are the knowledge store's


def _sums_by_cluster(state: KnowledgeState, cluster_of: dict[str, int]) -> dict[int, tuple[int, int]]:
    """Per cluster, the (digest sum, count) its items add to the knowledge fingerprint."""
    sums: dict[int, tuple[int, int]] = {}
    for row in state.rows():
        if counts_in_fingerprint(row):
            c = cluster_of[row["id"]]
            total, count = sums.get(c, (0, 0))
            sums[c] = (total + row_digest(row), count + 1)
    return sums


class ClusterReplay:
    """The fingerprint of `rebuild(journal, skip={id})`, computed cluster by cluster.

    The knowledge fingerprint is a sum of per-item digests, and no key or premise crosses a cluster
    (by construction of the synthetic store, not by asking the store), so the fingerprint of a full
    pure replay is the sum over clusters of pure replays of each cluster's own entries. A check
    replays the retracted item's cluster without it; the other clusters' parts come from earlier
    replays (a cluster written to since is replayed again first). Starts from one full replay.
    """

    def __init__(self, entries: list[Entry], cluster_of: dict[str, int]) -> None:
        self.cluster_of = cluster_of
        self.entries_of: dict[int, list[Entry]] = {}
        for entry in entries:
            self._file(entry)
        self.dirty: set[int] = set()
        # The whole journal replayed, kept up to date by `append`: what is live and what a component is.
        self.full = rebuild(entries)
        self.sums = _sums_by_cluster(self.full, cluster_of)

    def append(self, entry: Entry) -> None:
        """One more entry of the journal (a retraction the benchmark wrote)."""
        cluster = self._file(entry)
        if cluster is not None:
            self.dirty.add(cluster)
            self.full.apply(entry)

    def _file(self, entry: Entry) -> int | None:
        """Keep a knowledge entry with its cluster's entries and say which cluster; None for another domain's."""
        if not _KNOWLEDGE_OPS.handles(entry.op):
            return None  # a belief's entry: no part of the knowledge fingerprint (the full checks cover beliefs)
        subject = subject_of(entry)
        if subject is None or subject not in self.cluster_of:
            raise RuntimeError(f"entry {entry.seq} ({entry.op}) is not about one synthetic item")
        c = self.cluster_of[subject]
        self.entries_of.setdefault(c, []).append(entry)
        return c

    def fingerprint_without(self, item: str) -> str:
        """The knowledge fingerprint of the journal so far replayed as if `item` had never been written."""
        c = self.cluster_of[item]
        for other in sorted(self.dirty - {c}):
            self.sums.update({other: (0, 0)} | _sums_by_cluster(rebuild(self.entries_of[other]), self.cluster_of))
        self.dirty = {c}
        skipped = _sums_by_cluster(rebuild(self.entries_of[c], skip={item}), self.cluster_of).get(c, (0, 0))
        total = sum(t for k, (t, _) in self.sums.items() if k != c) + skipped[0]
        count = sum(n for k, (_, n) in self.sums.items() if k != c) + skipped[1]
        return combine(total, count)


# --- timing the graph -----------------------------------------------------------------------------


class TimedGraph:
    """The graph port, passing every call through and adding up the time spent in named queries."""

    def __init__(self, graph: FalkorDBGraph) -> None:
        self._graph = graph
        self.backend = graph.backend
        self.query_seconds = 0.0
        self.by_query: dict[str, float] = {}

    def run(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        try:
            return self._graph.run(name, params)
        finally:
            dt = time.perf_counter() - t0
            self.query_seconds += dt
            self.by_query[name] = self.by_query.get(name, 0.0) + dt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


# --- progress -------------------------------------------------------------------------------------


class Progress:
    """A one-line progress display on stderr (at most a few updates a second)."""

    def __init__(self, label: str, total: int, enabled: bool = True) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self.start = time.perf_counter()
        self._last = 0.0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last < 0.5 and done < self.total):
            return
        self._last = now
        elapsed = now - self.start
        eta = elapsed / done * (self.total - done) if done else 0.0
        print(f"\r  {self.label}: {done:,}/{self.total:,}  {elapsed:6.1f}s  eta {eta:5.0f}s ",
              end="", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled:
            print(f"\r  {self.label}: {self.total:,} done in {time.perf_counter() - self.start:.1f}s"
                  + " " * 20, file=sys.stderr, flush=True)


# --- one store: load, retract, check -------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One timed retraction."""

    item: str
    component: int  # the component's size when it was retracted
    seconds: float  # wall time of the write, projection included
    query_seconds: float  # of which in graph queries (head read, append, projection)
    changed: int  # items whose status changed
    exact: bool | None  # None: not checked
    statements: dict[str, float] = field(default_factory=dict)  # seconds in each named graph statement


@dataclass
class StoreRun:
    """What one store's load and retractions measured."""

    items: int
    entries: int
    clusters: int
    largest_cluster: int
    derived: int
    premise_edges: int
    competing: int
    confirming: int
    load_seconds: float
    check_every: int
    samples: list[Sample] = field(default_factory=list)
    disputed_or_refuted: int = 0
    verify_ok: bool | None = None
    graph_matches_state: bool | None = None
    rebuild_seconds: list[float] = field(default_factory=list)  # the per-cluster reference, per check
    full_checks: list[bool] = field(default_factory=list)  # literal rebuild(journal, skip={id}) checks
    beliefs: int = 0  # beliefs resting on items (their exactness is in the full checks)
    full_rebuild_seconds: list[float] = field(default_factory=list)
    load_replay_ok: bool | None = None  # a full pure replay after the load equals the store
    query_seconds_by_name: dict[str, float] = field(default_factory=dict)

    @property
    def checked(self) -> list[Sample]:
        return [s for s in self.samples if s.exact is not None]

    @property
    def exact(self) -> int:
        return sum(1 for s in self.samples if s.exact)


def _plans(svc: Service, proposals: list[dict[str, Any]]) -> Iterator[Callable[[], Draft]]:
    for proposal in proposals:
        yield lambda p=proposal: planning.plan_add(svc.state.knowledge, p, by=LOADER)


@dataclass
class Store:
    """One store being measured: the service as it serves it, the benchmark's own reference of it (the journal,
    replayed purely: what is live, what a retraction's component is, what an exact answer is), and its run."""

    service: Service
    graph: TimedGraph
    syn: Synthetic
    entries: list[Entry]
    reference: ClusterReplay
    run: StoreRun
    retractions: int
    full_at: set[int]
    rng: random.Random
    bar: Progress


def load_store(n: int, seed: int, check_every: int, *, data_dir: Path, progress: bool = True,
               label: str = "") -> tuple[Synthetic, list[Entry], ClusterReplay, StoreRun]:
    """A synthetic store of n items (and beliefs resting on them) in `data_dir`, loaded through the public bulk
    path (`Journal.write_batch`, planned on the whole state in memory: service_shape.LOADING), with the reference
    replay of its journal and the load's figures; the loading service is closed again."""
    syn = synthesise(n, seed)
    svc = Service(FalkorDBGraph.embedded(data_dir), Settings(data_dir=data_dir, **LOADING))
    try:
        svc.start()
        bar = Progress(f"{label} load {n:,} items", len(syn.proposals), progress)
        t0 = time.perf_counter()
        written = svc.journal.write_batch(LOADER, _counted(_plans(svc, syn.proposals), bar), batch_size=500)
        load_seconds = time.perf_counter() - t0
        bar.done()
        knowledge = svc.state.knowledge
        if len(knowledge.items) != n or written != len(syn.proposals):
            raise RuntimeError(f"loaded {len(knowledge.items)} items in {written} entries; expected "
                               f"{n} items in {len(syn.proposals)} entries (a proposal was refused?)")
        run = StoreRun(
            items=n, entries=written, clusters=len(syn.clusters), largest_cluster=max(syn.clusters),
            derived=syn.derived, premise_edges=syn.premise_edges, competing=syn.competing,
            confirming=syn.confirming, load_seconds=load_seconds, check_every=check_every,
        )
        run.beliefs = svc.journal.write_batch(LOADER, _belief_plans(svc, syn, random.Random(seed + 2)),
                                              batch_size=500)
        run.disputed_or_refuted = sum(1 for r in knowledge.items.values() if r.status in ("disputed", "refuted"))
        entries: list[Entry] = list(svc.journal.entries_after(0))
        if progress:
            print(f"  {label} full pure replay of {len(entries):,} entries (the reference) ...",
                  file=sys.stderr, flush=True)
        reference = ClusterReplay(entries, syn.cluster_of)
        run.load_replay_ok = reference.full.fingerprint() == knowledge.fingerprint()
        return syn, entries, reference, run
    finally:
        svc.close()


def serve_store(data_dir: Path, state: str) -> tuple[Service, TimedGraph]:
    """The store opened as `make serve` opens it (state "graph": every domain held in the graph, a write reading
    what it touches), or with every domain's state in memory ("memory"), its graph timed."""
    graph = TimedGraph(FalkorDBGraph.embedded(data_dir))
    modes = {domain: state for domain in DOMAINS}
    svc = Service(graph, Settings(data_dir=data_dir, **modes))  # type: ignore[arg-type]  # the port, timed
    svc.start()
    graph.by_query.clear()  # only the retractions' statements are reported
    return svc, graph


def measure_stores(specs: list[tuple[int, int, int, int, Path, str]], seed: int, *, progress: bool = True,
                   state: str = "graph", verify: list[bool] | None = None) -> list[StoreRun]:
    """Each (items, retractions, check_every, full_checks, data_dir, label) store loaded, then served, and the
    retractions of all of them interleaved one by one (the stores take turns, so that a busy moment of the machine
    falls on all of them alike); at the end each store whose `verify` is True is verified whole."""
    stores: list[Store] = []
    try:
        for n, retractions, check_every, full_checks, data_dir, label in specs:
            syn, entries, reference, run = load_store(n, seed, check_every, data_dir=data_dir, progress=progress,
                                                      label=label)
            service, graph = serve_store(data_dir, state)
            full_at = {retractions - 1 - round(i * retractions / full_checks) for i in range(full_checks)}
            stores.append(Store(service, graph, syn, entries, reference, run, retractions, full_at,
                                random.Random(seed + 1), Progress(f"{label} retract", retractions, progress)))
        gc.collect()
        for k in range(max(store.retractions for store in stores)):
            for store in stores:
                if k < store.retractions:
                    _retract_one(store, k)
        for store, whole in zip(stores, verify or [True] * len(stores), strict=True):
            store.bar.done()
            store.run.query_seconds_by_name = dict(store.graph.by_query)
            store.run.verify_ok = store.service.verify().ok if whole else None
            store.run.graph_matches_state = store.service.graph_fingerprint() == store.service.fingerprints()["store"]
        return [store.run for store in stores]
    finally:
        for store in stores:
            store.service.close()


def _belief_plans(svc: Service, syn: Synthetic, rng: random.Random) -> Iterator[Callable[[], Draft]]:
    """Beliefs whose evidence rests on items (about one per BELIEF_EVERY items, each with a row on a
    random present item of one cluster and one on another item of it), so a retraction's exactness
    is checked for beliefs too: a row goes with an item that falls, with it or after it."""
    by_cluster: dict[int, list[str]] = {}
    for item in syn.item_ids:
        by_cluster.setdefault(syn.cluster_of[item], []).append(item)
    for c, members in sorted(by_cluster.items()):
        for b in range(max(1, len(members) // BELIEF_EVERY) if len(members) >= 2 else 0):
            roots = rng.sample(members, 2)
            if not all(svc.state.present("item", r) for r in roots):
                continue
            rows = [{"weight": round(rng.uniform(0.3, 0.9), 3), "family": f"f{c}-{k}", "root_kind": "item",
                     "root_ids": [r]} for k, r in enumerate(roots)]
            # One word of its own: templated words shared by every belief ("cluster", "claim") make each a near match
            # of all the others, so that each create's contradiction check reads them all (the answer grows with
            # the store, which is not what this benchmark measures).
            payload = {"proposition": f"claim c{c}b{b}", "evidence": rows}
            yield lambda payload=payload: svc.state.beliefs.plan("belief.create", payload)


def _counted(plans: Iterator[Callable[[], Draft]], bar: Progress) -> Iterator[Callable[[], Draft]]:
    for i, plan in enumerate(plans, 1):
        yield plan
        if i % 200 == 0:
            bar.update(i)


def _retract_one(store: Store, k: int) -> None:
    """The store's `k`th retraction: a random item live in the reference, retracted through the service's write
    path as it serves (planned on what it reads, or on its state in memory), timed and, when it is due, checked."""
    service, run, reference = store.service, store.run, store.reference
    knowledge = reference.full
    item = store.rng.choice(store.syn.item_ids)
    while not knowledge.items[item].live():
        item = store.rng.choice(store.syn.item_ids)
    size = len(knowledge.component([item]))
    queries_before = store.graph.query_seconds
    by_query_before = dict(store.graph.by_query)
    t0 = time.perf_counter()
    result = service.journal.write("bench", lambda: service.plan_knowledge(
        lambda k: planning.plan_retract(k, item, "benchmark")))
    seconds = time.perf_counter() - t0
    query_seconds = store.graph.query_seconds - queries_before
    statements = {name: seconds - by_query_before.get(name, 0.0) for name, seconds in store.graph.by_query.items()
                  if seconds != by_query_before.get(name, 0.0)}
    store.entries.append(result.entry)
    reference.append(result.entry)
    exact = None
    if k % run.check_every == 0:
        r0 = time.perf_counter()
        exact = service.fingerprints()["knowledge"] == reference.fingerprint_without(item)
        run.rebuild_seconds.append(time.perf_counter() - r0)
    if k in store.full_at:
        r0 = time.perf_counter()
        # The whole store's fingerprint, items and beliefs, against a literal replay without the item.
        run.full_checks.append(service.fingerprints()["store"] == replay(store.entries, skip=[item]).fingerprint())
        run.full_rebuild_seconds.append(time.perf_counter() - r0)
    run.samples.append(Sample(item, size, seconds, query_seconds, len(result.result or {}), exact, statements))
    store.bar.update(k + 1)



# --- statistics and the report --------------------------------------------------------------------


def bucket_of(size: int) -> str:
    for lo, hi, label in BUCKETS:
        if size >= lo and (hi is None or size <= hi):
            return label
    raise ValueError(size)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest-rank on the sorted values."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def by_bucket(samples: list[Sample]) -> dict[str, list[Sample]]:
    groups: dict[str, list[Sample]] = {label: [] for _, _, label in BUCKETS}
    for s in samples:
        groups[bucket_of(s.component)].append(s)
    return groups


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def store_section(title: str, run: StoreRun) -> list[str]:
    times = [s.seconds for s in run.samples]
    checked = run.checked
    lines = [
        f"== {title}: {run.items:,} items ==",
        f"store: {run.items:,} items in {run.entries:,} add entries, {run.clusters:,} clusters "
        f"(largest {run.largest_cluster}), {run.derived:,} derived items, {run.premise_edges:,} premise edges, "
        f"{run.competing:,} items on an earlier item's key, {run.confirming:,} confirming re-assertions; "
        f"{run.disputed_or_refuted:,} disputed or refuted after the load",
        f"load (write_batch, embedded FalkorDB): {run.load_seconds:.1f} s "
        f"({run.entries / run.load_seconds:,.0f} entries/s)",
        f"retractions: {len(run.samples):,}; status changes per retraction: "
        f"p50 {percentile([s.changed for s in run.samples], 50):.0f}, "
        f"max {max((s.changed for s in run.samples), default=0)}",
        f"exact: {sum(1 for s in checked if s.exact)}/{len(checked)} checked"
        + (" (every retraction)" if run.check_every == 1 else f" (every {run.check_every}th retraction)")
        + f": store fingerprint == pure replay of the journal without that item, replayed cluster by "
        f"cluster (p50 {_ms(percentile(run.rebuild_seconds, 50))} ms a check)",
        f"  full rebuild(journal, skip={{id}}) == store, items and {run.beliefs:,} beliefs: "
        f"{sum(run.full_checks)}/{len(run.full_checks)}"
        + (f" ({len(run.full_checks)} sampled: one full replay of {run.entries:,}+ entries takes "
           f"{statistics.median(run.full_rebuild_seconds):.1f} s, too slow for every retraction)"
           if run.full_checks else " (none: a full replay per retraction is too slow at this size)")
        + f"; full replay after the load == store: {'yes' if run.load_replay_ok else 'NO'}",
        "verify (chain whole, projection == replay): "
        + {True: "ok", False: "FAILED", None: "not run (--no-big-verify)"}[run.verify_ok] + "; "
        f"graph's nodes' fingerprint == the service's: {'yes' if run.graph_matches_state else 'NO'}",
        f"retraction time: p50 {_ms(percentile(times, 50))} ms, p95 {_ms(percentile(times, 95))} ms, "
        f"max {_ms(max(times, default=math.nan))} ms; in graph queries p50 "
        f"{_ms(percentile([s.query_seconds for s in run.samples], 50))} ms",
        "graph statements, ms per retraction (the six that took longest): " + ", ".join(
            f"{name} {seconds / max(len(run.samples), 1) * 1000:.2f}"
            for name, seconds in sorted(run.query_seconds_by_name.items(), key=lambda kv: -kv[1])[:6]),
        "by component size:",
        f"  {'size':>7} {'count':>6} {'p50 ms':>8} {'p95 ms':>8} {'queries p50 ms':>15}",
    ]
    for label, group in by_bucket(run.samples).items():
        secs = [s.seconds for s in group]
        lines.append(f"  {label:>7} {len(group):>6} {_ms(percentile(secs, 50)):>8} {_ms(percentile(secs, 95)):>8} "
                     f"{_ms(percentile([s.query_seconds for s in group], 50)):>15}")
    return lines


@dataclass(frozen=True)
class BucketVerdict:
    bucket: str
    small_count: int
    big_count: int
    small_p50: float
    big_p50: float
    ratio: float
    verdict: str  # PASS, FAIL or "too few samples"


def compare(small: StoreRun, big: StoreRun) -> list[BucketVerdict]:
    """Per component-size bucket: p50 at the big store over p50 at the small one, against the bar."""
    verdicts = []
    a, b = by_bucket(small.samples), by_bucket(big.samples)
    for label in a:
        sp = percentile([s.seconds for s in a[label]], 50)
        bp = percentile([s.seconds for s in b[label]], 50)
        ratio = bp / sp if a[label] and b[label] else math.nan
        if len(a[label]) < MIN_SAMPLES or len(b[label]) < MIN_SAMPLES:
            verdict = "too few samples"
        else:
            verdict = "PASS" if ratio <= RATIO_BAR else "FAIL"
        verdicts.append(BucketVerdict(label, len(a[label]), len(b[label]), sp, bp, ratio, verdict))
    return verdicts


def statement_medians(small: list[Sample], big: list[Sample]) -> list[tuple[str, float, float]]:
    """Each named statement's median seconds per retraction in the two groups of retractions (0 for one that
    ran none), the longest at the big store first: which statement a size class's difference is in."""
    names = {name for s in (*small, *big) for name in s.statements}
    rows = [(name, percentile([s.statements.get(name, 0.0) for s in small], 50),
             percentile([s.statements.get(name, 0.0) for s in big], 50)) for name in names]
    return sorted(rows, key=lambda row: (-row[2], row[0]))


def statement_differences(small: list[Sample], big: list[Sample]) -> list[tuple[str, float, float]]:
    """Each named statement's mean seconds per retraction in the two groups (0 where none ran), the largest excess
    at the big store first. Means, unlike medians, add up to the queries' time: the difference of a size class's
    totals is in these rows, however it is spread over statements that each take little."""
    names = {name for s in (*small, *big) for name in s.statements}
    rows = [(name, statistics.fmean([s.statements.get(name, 0.0) for s in small]),
             statistics.fmean([s.statements.get(name, 0.0) for s in big])) for name in names]
    return sorted(rows, key=lambda row: (row[1] - row[2], row[0]))


def report(small: StoreRun, big: StoreRun | None, state: str = "graph") -> str:
    served = ("as `make serve` serves it: every domain held in the graph, each write reading what it touches"
              if state == "graph" else "with every domain's state in memory")
    lines = [f"each store bulk-loaded, then served {served}; the retractions interleaved, one store then the other",
             "", *store_section("small store", small)]
    if big is not None:
        lines += ["", *store_section("big store", big)]
        lines += ["", f"== retraction p50, big ({big.items:,}) / small ({small.items:,}), same component size; "
                      f"bar <= {RATIO_BAR}x with >= {MIN_SAMPLES} samples at both ==",
                  f"  {'size':>7} {'n small':>8} {'n big':>6} {'small ms':>9} {'big ms':>8} {'ratio':>6}  verdict"]
        for v in compare(small, big):
            ratio = "-" if math.isnan(v.ratio) else f"{v.ratio:.2f}"
            lines.append(f"  {v.bucket:>7} {v.small_count:>8} {v.big_count:>6} {_ms(v.small_p50):>9} "
                         f"{_ms(v.big_p50):>8} {ratio:>6}  {v.verdict}")
        lines.append("statements' p50 ms per retraction, small / big, by component size (the four longest at the "
                     "big store; 0 where a retraction ran none):")
        a, b = by_bucket(small.samples), by_bucket(big.samples)
        for label in a:
            if a[label] and b[label]:
                lines.append(f"  {label:>7}: " + ", ".join(
                    f"{name} {_ms(small_p50)} / {_ms(big_p50)}"
                    for name, small_p50, big_p50 in statement_medians(a[label], b[label])[:4]))
        lines.append("statements' mean ms per retraction, small / big, by component size (the four that grew most; "
                     "with the mean time in queries and the statements run, small / big):")
        for label in a:
            if a[label] and b[label]:
                mean_queries = [statistics.fmean(s.query_seconds for s in group) for group in (a[label], b[label])]
                ran = [statistics.fmean(len(s.statements) for s in group) for group in (a[label], b[label])]
                lines.append(f"  {label:>7}: " + ", ".join(
                    f"{name} {_ms(small_mean)} / {_ms(big_mean)}"
                    for name, small_mean, big_mean in statement_differences(a[label], b[label])[:4])
                    + f"; queries {_ms(mean_queries[0])} / {_ms(mean_queries[1])}, "
                      f"{ran[0]:.1f} / {ran[1]:.1f} kinds of statement")
        judged = [v for v in compare(small, big) if v.verdict != "too few samples"]
        overall = "PASS" if judged and all(v.verdict == "PASS" for v in judged) else "FAIL"
        passed = sum(v.verdict == "PASS" for v in judged)
        lines.append(f"overall: {overall} ({passed}/{len(judged)} buckets judged pass)")
    return "\n".join(lines)


def run(items: int, retractions: int, big: int, big_retractions: int, seed: int, big_check_every: int = 10,
        full_checks: int = 2, big_full_checks: int = 0, progress: bool = True, state: str = "graph",
        big_verify: bool = True) -> tuple[StoreRun, StoreRun | None, str]:
    """Measure the small store (every retraction checked) and, unless big is 0, the big one, their retractions
    interleaved. `big_verify`: verify the big store whole at the end (a replay of all of it)."""
    with tempfile.TemporaryDirectory(prefix="bench-retraction-") as tmp:
        specs = [(items, retractions, 1, full_checks, Path(tmp) / "small", f"{items:,}")]
        if big:
            specs.append((big, big_retractions, big_check_every, big_full_checks, Path(tmp) / "big", f"{big:,}"))
        runs = measure_stores(specs, seed, progress=progress, state=state, verify=[True, big_verify][:len(specs)])
    small, large = runs[0], (runs[1] if big else None)
    return small, large, report(small, large, state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.knowledge_retraction", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000, help="items in the small store (default 10,000)")
    parser.add_argument("--retractions", type=int, default=1_000, help="retractions on it, each checked")
    parser.add_argument("--big", type=int, default=100_000, help="items in the big store (0: skip it)")
    parser.add_argument("--big-retractions", type=int, default=300, help="retractions on the big store")
    parser.add_argument("--big-check-every", type=int, default=10,
                        help="check exactness on every n-th retraction of the big store (default 10)")
    parser.add_argument("--full-checks", type=int, default=2,
                        help="retractions of the small store also checked by a literal full rebuild (default 2)")
    parser.add_argument("--big-full-checks", type=int, default=0,
                        help="the same on the big store (default 0: one takes minutes at 100,000 items)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--state", choices=("graph", "memory"), default="graph",
                        help="where the served stores hold each domain's state (GRAPH_SERVICE_KNOWLEDGE, _BELIEFS, "
                             "_STREAM and _QUESTIONS): graph (none held, as `make serve` runs), or memory")
    parser.add_argument("--no-big-verify", dest="big_verify", action="store_false",
                        help="do not verify the big store at the end (a replay of all of it: about 25 minutes at "
                             "10^6 entries)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    small, big, text = run(args.items, args.retractions, args.big, args.big_retractions, args.seed,
                           args.big_check_every, args.full_checks, args.big_full_checks, progress=not args.quiet,
                           state=args.state, big_verify=args.big_verify)
    print(text, flush=True)
    runs = [r for r in (small, big) if r is not None]
    ok = all(r.exact == len(r.checked) and all(r.full_checks) and r.load_replay_ok and r.verify_ok is not False
             and r.graph_matches_state for r in runs)
    if big is not None:
        judged = [v for v in compare(small, big) if v.verdict != "too few samples"]
        ok = ok and all(v.verdict == "PASS" for v in judged)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
