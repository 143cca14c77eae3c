"""W3C PROV out of a real store on each backend: `export --format prov-*` and the provDocument field."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import prov
import pytest
import strawberry
from prov.model import ProvAttribution, ProvDerivation, ProvDocument, ProvEntity, ProvGeneration

from graph_service.api.prov_types import ProvQuery
from graph_service.knowledge import planning
from graph_service.prov import NAMESPACE_URI, prov_document
from graph_service.service import Service
from tests.backends import Backend

ROOT = Path(__file__).resolve().parents[2]
READS = {"prov-json": {"format": "json"}, "prov-n": {"format": "provn"},
         "prov-o": {"format": "rdf", "rdf_format": "turtle"}}
# rdflib 7.6 calls its own deprecated Dataset API while prov reads Turtle with it.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")


def uri(kind: str, id: str | int) -> str:
    return f"{NAMESPACE_URI}{kind}/{quote(str(id), safe='')}"


def cli(store: Backend, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run([sys.executable, "-m", "graph_service", *args], cwd=ROOT, env={**env, **store.env()},
                          capture_output=True, text=True, timeout=180)


def seed(store: Backend) -> dict[str, str]:
    """A premise, an item derived from it, a belief resting on the derived item and on what someone said (planned on
    the whole state, held in memory)."""
    service = Service.open(store.whole_state_settings())
    try:
        k, write = service.state.knowledge, service.journal.write
        premise = write("ann", lambda: planning.plan_add(k, {"kind": "fact", "body": {"s": "abt:1", "r": "same_as",
                                                                                     "o": "buy:2"},
                                                             "source": "person"}, by="ann")).result["id"]
        derived = write("bob", lambda: planning.plan_add(k, {"kind": "fact", "body": {"s": "abt:1", "r": "brand",
                                                                                     "o": "acme"},
                                                             "source": "outcome", "derived_from": [premise]},
                                                         by="bob")).result["id"]
        said = write("ann", lambda: service.state.statements.plan_say("Acme makes doors.", "ann smith", 1)).result
        created = write("carol", lambda: service.state.beliefs.plan("belief.create", {
            "proposition": "acme is a door maker",
            "evidence": [{"weight": 0.8, "family": "actor:ann", "root_kind": "item", "root_ids": [derived]},
                         {"weight": 0.6, "family": "crm", "root_kind": "observation", "root_ids": ["obs-3-0"]}]}))
        return {"premise": premise, "derived": derived, "belief": created.result["created"][0],
                "on_item": created.result["evidence"][0], "said": said[0]["belief"]}
    finally:
        service.close()


def in_process(store: Backend, node: str | None = None) -> ProvDocument:
    """The document prov_document gives on the whole state (held in memory): what every other way must give."""
    service = Service.open(store.whole_state_settings())
    try:
        return prov_document(service.state, service.journal.entries_after(0), node=node)
    finally:
        service.close()


def pairs(doc: ProvDocument, kind: type) -> set[tuple[str, str]]:
    return {(r.formal_attributes[0][1].uri, r.formal_attributes[1][1].uri) for r in doc.get_records(kind)}


@pytest.mark.parametrize("fmt", ["prov-json", "prov-n", "prov-o"])
def test_the_exported_store_reads_back_as_the_store_s_document(backend: Backend, tmp_path: Path, fmt: str) -> None:
    seed(backend)
    out = tmp_path / f"store.{fmt}"
    done = cli(backend, "export", "--format", fmt, "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert prov.read(io.StringIO(out.read_text(encoding="utf-8")), **READS[fmt]) == in_process(backend)


def test_one_node_s_derivation_holds_what_it_rests_on(backend: Backend, tmp_path: Path) -> None:
    ids = seed(backend)
    done = cli(backend, "export", "--format", "prov-json", "--node", ids["belief"])
    assert done.returncode == 0, done.stderr
    doc = ProvDocument.deserialize(content=done.stdout, format="json")
    assert doc == in_process(backend, ids["belief"])
    assert ProvDocument.deserialize(content=doc.serialize(format="json"), format="json") == doc
    derived = pairs(doc, ProvDerivation)
    assert (uri("item", ids["derived"]), uri("item", ids["premise"])) in derived
    assert (uri("belief", ids["belief"]), uri("evidence", ids["on_item"])) in derived
    assert (uri("evidence", ids["on_item"]), uri("item", ids["derived"])) in derived
    assert (uri("evidence", ids["on_item"]), uri("family", "actor:ann")) in pairs(doc, ProvAttribution)
    entities = {r.identifier.uri for r in doc.get_records(ProvEntity)}
    assert uri("observation", "obs-3-0") in entities and uri("belief", ids["said"]) not in entities
    assert sorted(e for e, _ in pairs(doc, ProvGeneration)) == sorted(entities)  # every entity, once


def test_an_unknown_node_is_bad_usage_and_writes_nothing(backend: Backend, tmp_path: Path) -> None:
    seed(backend)
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "nothing.json"
    done = cli(backend, "export", "--format", "prov-n", "--node", "k-nope", "--output", str(out))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == ("graph_service export: no item, observation, assertion, belief or "
                                            "evidence row has the id 'k-nope'")
    assert "Traceback" not in done.stderr and list(folder.iterdir()) == []


def test_the_graphql_field_gives_the_same_derivation(backend: Backend) -> None:
    ids = seed(backend)
    schema = strawberry.Schema(query=ProvQuery)
    expected = in_process(backend, node=ids["derived"])
    service = Service.open(backend.settings())  # as served: holding nothing
    try:
        def ask(id: str, fmt: str) -> strawberry.types.ExecutionResult:
            query = f'{{ provDocument(id: "{id}", format: {fmt}) }}'
            return asyncio.run(schema.execute(query, context_value={"service": service}))

        for fmt, read in (("PROV_JSON", READS["prov-json"]), ("PROV_N", READS["prov-n"]),
                          ("PROV_O", READS["prov-o"])):
            answer = ask(ids["derived"], fmt)
            assert answer.errors is None, answer.errors
            assert prov.read(io.StringIO(answer.data["provDocument"]), **read) == expected
        missing = ask("k-nope", "PROV_JSON")
        assert missing.errors and missing.errors[0].extensions == {"code": "NOT_FOUND", "field": "id"}
    finally:
        service.close()
    assert json.loads(cli(backend, "verify").stdout)["ok"] is True  # reading PROV wrote nothing


def test_a_service_holding_no_state_exports_the_same_document(backend: Backend, tmp_path: Path) -> None:
    # Holding neither the knowledge state, the belief layer nor the stream, the export replays the journal for its
    # records.
    seed(backend)
    out = tmp_path / "store.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    done = subprocess.run([sys.executable, "-m", "graph_service", "export", "--format", "prov-json", "--output",
                           str(out)], cwd=ROOT, env={**env, **backend.env(), "GRAPH_SERVICE_KNOWLEDGE": "graph",
                                                     "GRAPH_SERVICE_BELIEFS": "graph", "GRAPH_SERVICE_STREAM": "graph",
                                                     "GRAPH_SERVICE_QUESTIONS": "graph"},
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert prov.read(io.StringIO(out.read_text(encoding="utf-8")), format="json") == in_process(backend)
