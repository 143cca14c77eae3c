"""The retraction benchmark, tiny: it still runs, every retraction is exact, the report has its fields.

The full run is `python -m benchmarks.knowledge_retraction` (10,000 and 100,000 items); this keeps it
from rotting in the default suite.
"""

from __future__ import annotations

from benchmarks import knowledge_retraction as bench


def test_synthetic_store_has_shared_keys_diamonds_and_a_spread_of_clusters() -> None:
    syn = bench.synthesise(2_000, seed=3)
    assert len(syn.item_ids) == len(set(syn.item_ids)) == 2_000
    assert syn.competing > 0 and syn.confirming > 0  # keys shared by items from different sources
    assert syn.premise_edges >= 2 * syn.derived  # 2-3 premises each: diamonds
    assert min(syn.clusters) == 1 and max(syn.clusters) > 100
    assert syn.proposals == bench.synthesise(2_000, seed=3).proposals  # deterministic in the seed


def test_benchmark_small_run_is_exact_and_reports_every_field() -> None:
    small, big, text = bench.run(300, 20, 600, 20, seed=5, big_check_every=2, full_checks=2,
                                 big_full_checks=1, progress=False)
    assert big is not None
    for run in (small, big):
        assert run.items in (300, 600)
        assert len(run.samples) == 20
        assert run.checked and run.exact == len(run.checked)  # 100% exact
        assert run.full_checks and all(run.full_checks)
        assert run.load_replay_ok and run.verify_ok and run.graph_matches_state
        assert run.beliefs > 0  # the full checks compare beliefs too
        assert all(s.seconds > 0 and s.component >= 1 for s in run.samples)
        # Each retraction's own statements: the append and the item reads, adding up to its time in queries.
        assert all({"append_entry", "item_reads_upto"} <= set(s.statements) for s in run.samples)
        assert all(abs(sum(s.statements.values()) - s.query_seconds) < 1e-6 for s in run.samples)
    assert len(small.checked) == 20 and len(big.checked) == 10
    for field in ("exact: 20/20", "exact: 10/10", "p50", "p95", "by component size", "verify", "ratio",
                  "graph statements, ms per retraction", "item_reads_upto", "append_entry",
                  "overall:", "statements' p50 ms per retraction, small / big",
                  "statements' mean ms per retraction, small / big", "kinds of statement",
                  *(label for _, _, label in bench.BUCKETS)):
        assert field in text, field
    assert len(bench.compare(small, big)) == len(bench.BUCKETS)
    # The means add up to the time in queries: the difference of two size classes' totals is in their rows.
    for group in (small.samples, big.samples):
        total = sum(mean for _, _, mean in bench.statement_differences(small.samples, group))
        assert abs(total - sum(s.query_seconds for s in group) / len(group)) < 1e-6


def test_buckets_and_percentiles() -> None:
    assert [bench.bucket_of(n) for n in (1, 2, 5, 6, 20, 21, 100, 101, 10_000)] == [
        "1", "2-5", "2-5", "6-20", "6-20", "21-100", "21-100", "101+", "101+"]
    assert bench.percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.0
    assert bench.percentile([3.0, 1.0, 2.0, 4.0], 95) == 4.0
