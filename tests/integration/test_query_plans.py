"""No named query scans a whole label, on FalkorDB or on Neo4j, unless it is a whole-store read by nature.

A pattern that starts from a node found by id can still be planned as a scan of every node of a label
(FalkorDB ranges over every Evidence for `(e:Evidence)-[:BEARS_ON]->(b:Belief {id: $id}) WHERE NOT
e.retracted`, and over every Item for `(c:Item {key: i.key})`): it answers right and costs what the
store holds. This asks each backend for every file's plan and fails naming any file that scans a label
(on Neo4j also a whole relationship type) and is not listed below with the reason it must."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graph_service.storage import queries
from tests.backends import Backend

CYPHER = Path(__file__).resolve().parents[2] / "cypher"

WHOLE_LABEL_READS = {
    "belief_count": "totalCount of a beliefs filter: every belief it selects",
    "flags_count": "totalCount of flags(pending): every flag it selects",
    "items_count": "totalCount of an items filter: every item it selects",
    "questions_count": "totalCount of questions(answered): every question it selects",
    "unknowns_count": "totalCount of unknowns(answered): every unknown it selects",
    "belief_fingerprint_rows": "verify's fingerprint of every belief",
    "item_fingerprint_rows": "verify's fingerprint of every item",
    "every_belief_history_upto": "fingerprint(asOf) and beliefs(asOf): every belief written by then",
    "every_item_history_upto": "fingerprint(asOf): every item written by then",
    "entries_off_position": "verify: entries whose position is not a number cannot be found by it",
    "every_item_entries_upto": "items, report and snapshot as of a position: every item written by then "
                               "(filtered on its state then, which no index holds)",
    "flags_history_upto": "flags(asOf): the whole list as it stood, as at the head",
    "flag_covers_upto": "flags(asOf) and report(asOf): what every flag covered then",
    "disputes_history_upto": "disputes(asOf): every dispute, open or closed then",
    "snapshots_history_upto": "report(asOf): every decision snapshot taken by then",
    "item_ids_upto": "a write over every item (a flag over everything, a snapshot of everything) on a service "
                     "that holds no knowledge state: every item written by then",
    "bench_raw_write": "the benchmarks' raw baseline, on a label of its own",
}
LISTS = {"ids", "frontier", "entries", "keys", "nodes", "edges", "tokens", "subjects", "observers", "pairs", "items",
         "conversations", "observations", "unknowns", "questions", "targets"}
NUMBERS = {"seq", "upto", "after", "limit", "first", "last", "from", "to", "at", "position", "after_key", "from_key",
           "to_key", "format", "since", "probe_beliefs", "probe_patterns", "most"}


def sample(name: str) -> object:
    """A value of the parameter's type: plans depend on types (an id that is null is never looked up)."""
    if name == "seqs":
        return [1]
    if name == "asked":  # a map of lists: one type to Neo4j's plan cache whatever their sizes
        return {key: ["x"] for key in LISTS}
    if name in LISTS:
        return ["x"]
    if name in NUMBERS or name.endswith("seq"):
        return 1
    return "x"


def _scans_of_every_file(backend: Backend, other: str,
                         scans_of: Callable[[Any, str], list[str]]) -> tuple[dict[str, list[str]], int]:
    """{file: the scans its plan holds} for every cypher/ file this backend runs (not the schema's, nor the
    `other` backend's own files), and how many were planned; `scans_of(graph, text)` reads one plan."""
    graph = backend.open_graph()
    try:
        graph.setup_schema()
        scanning, planned = {}, 0
        for path in sorted(CYPHER.glob("*.cypher")):
            if path.stem.startswith("schema_") or path.stem.endswith(other):
                continue
            scans = scans_of(graph, queries.load(path.stem))
            planned += 1
            if scans:
                scanning[path.stem] = scans
    finally:
        graph.close()
    return scanning, planned


def _assert_only_listed_files_scan(scanning: dict[str, list[str]], planned: int, where: str) -> None:
    assert planned > 50
    unexpected = {name: scans for name, scans in scanning.items() if name not in WHOLE_LABEL_READS}
    assert not unexpected, f"these queries scan a whole label{where}: {unexpected}"
    stale = sorted(set(WHOLE_LABEL_READS) - set(scanning))
    assert not stale, f"listed as scanning but no longer do{where} (remove them from WHOLE_LABEL_READS): {stale}"


def _falkordb_scans(graph: Any, text: str) -> list[str]:
    params = {p: sample(p) for p in set(re.findall(r"\$(\w+)", text))}
    plan = str(graph._graph.explain(text, params))
    return sorted(set(re.findall(r"(?:Node By Label Scan|All Node Scan)[^\n]*", plan)))


def _operators(plan: object) -> list[str]:
    """Every operator of a Neo4j plan tree (the driver's summary.plan), depth first."""
    assert isinstance(plan, dict)
    return [plan["operatorType"], *(op for child in plan.get("children", []) for op in _operators(child))]


def _neo4j_scans(graph: Any, text: str) -> list[str]:
    # Planned without values: Neo4j types a parameter from its value, and a sample of the wrong type (a
    # text for a map) is refused; unbound, each is planned as the statement uses it.
    with graph._driver.session(notifications_min_severity="OFF") as session:
        plan = session.run("EXPLAIN " + text).consume().plan
    return sorted({op for op in _operators(plan)
                   if re.search(r"LabelScan|AllNodesScan|RelationshipTypeScan|AllRelationshipsScan", op)})


@pytest.mark.parametrize("backend", ["falkordb"], indirect=True)
def test_no_query_scans_a_label_unless_it_must(backend: Backend) -> None:
    _assert_only_listed_files_scan(*_scans_of_every_file(backend, "_neo4j", _falkordb_scans), "")


@pytest.mark.parametrize("backend", ["neo4j"], indirect=True)
def test_no_query_scans_a_label_on_neo4j_unless_it_must(backend: Backend) -> None:
    # Neo4j plans by its own cost model: the same list must hold there, or production pays a scan per write.
    _assert_only_listed_files_scan(*_scans_of_every_file(backend, "_falkordb", _neo4j_scans),
                                   " (or relationship type) on Neo4j")
