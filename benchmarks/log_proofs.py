"""Merkle proof benchmark: inclusion and consistency proofs, and the signed checkpoint, by journal size.

    .venv/bin/python -m benchmarks.log_proofs [--sizes 10000 100000 1000000] [--proofs 300] [--seed 3]
        [--backend falkordb|neo4j] [--neo4j-uri bolt://...]

For each size, a store is bulk-loaded with notes through the public bulk path (`Journal.write_batch`,
which hashes every entry and stores its Merkle tree hashes), then `--proofs` inclusion proofs (random
entry, tree size = head) and consistency proofs (random older size) are made through the service's
own functions (graph_service.journal.proofs: one query for the O(log n) stored hashes, then pure
hashing) and checked with the standalone verifier (checking is not timed). In the same run, interleaved
with the proofs, the raw round trip of the smallest named query (`head_read`) is timed as the baseline.
The bar (issue 12): each proof's p50 at 10^6 entries <= 10 ms. Progress on stderr, the report on stdout.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from graph_service.journal import proofs
from graph_service.journal.notes import NoteDomain, plan_note
from graph_service.journal.store import Journal
from graph_service.storage.port import GraphPort
from graph_service.tlog.verifier import verify_consistency, verify_inclusion


def open_store(backend: str, folder: Path, neo4j_uri: str | None) -> GraphPort:
    if backend == "neo4j":
        from graph_service.storage.neo4j_adapter import Neo4jGraph

        graph = Neo4jGraph(neo4j_uri or "bolt://127.0.0.1:7687", "neo4j", "neo4j")
        return graph
    from graph_service.storage.falkordb_adapter import FalkorDBGraph

    return FalkorDBGraph.embedded(folder)


def ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1e3:6.2f} ms  p95 {p95 * 1e3:6.2f} ms"


def run_size(size: int, args: argparse.Namespace, root: Path) -> dict[str, float]:
    graph = open_store(args.backend, root / f"store-{size}", args.neo4j_uri)
    try:
        journal = Journal(graph, [NoteDomain()]).open()
        if journal.seq:
            raise SystemExit(f"the store for {size} entries is not empty")
        started = time.perf_counter()
        bar = tqdm(total=size, desc=f"load {size:,}", unit="entry", file=sys.stderr, disable=None)

        def plans():  # type: ignore[no-untyped-def]
            for i in range(size):
                bar.update()
                yield lambda i=i: plan_note(f"note {i}")

        journal.write_batch("bench", plans(), batch_size=2_000)
        bar.close()
        load_s = time.perf_counter() - started
        head = journal.seq
        rng = random.Random(args.seed)
        inclusion_t, consistency_t, baseline_t = [], [], []
        for _ in range(args.proofs):
            t0 = time.perf_counter()
            graph.run("head_read")
            baseline_t.append(time.perf_counter() - t0)
            seq = rng.randint(1, head)
            t0 = time.perf_counter()
            proof = proofs.inclusion(graph, seq, head, head)
            inclusion_t.append(time.perf_counter() - t0)
            verify_inclusion(proof.leaf_hash, seq - 1, head, proof.hashes, proof.root)
            first = rng.randint(1, head)
            t0 = time.perf_counter()
            cons = proofs.consistency(graph, first, head, head)
            consistency_t.append(time.perf_counter() - t0)
            verify_consistency(first, head, cons.hashes, cons.first_root, cons.second_root)
        base = statistics.median(baseline_t)
        print(f"{size:>9,} entries  load {load_s:7.1f} s ({size / load_s:,.0f} entries/s)\n"
              f"          inclusion   {ms(inclusion_t)}  ({statistics.median(inclusion_t) / base:.1f}x the raw trip)\n"
              f"          consistency {ms(consistency_t)}  ({statistics.median(consistency_t) / base:.1f}x)\n"
              f"          raw head_read {ms(baseline_t)}", flush=True)
        return {"inclusion_p50_ms": statistics.median(inclusion_t) * 1e3,
                "consistency_p50_ms": statistics.median(consistency_t) * 1e3}
    finally:
        graph.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.log_proofs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--proofs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb")
    parser.add_argument("--neo4j-uri")
    args = parser.parse_args(argv)
    if args.backend == "neo4j" and len(args.sizes) > 1:
        parser.error("on Neo4j give one --sizes value per run (the store must start empty)")
    with tempfile.TemporaryDirectory(prefix="log-proofs-") as folder:
        results = {size: run_size(size, args, Path(folder)) for size in args.sizes}
    largest = max(results)
    ok = results[largest]["inclusion_p50_ms"] <= 10 and results[largest]["consistency_p50_ms"] <= 10
    print(f"bar (p50 <= 10 ms at {largest:,}): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
