"""The W3C PROV mapping, pure: a small store written in memory, its document, and each format read back."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from urllib.parse import quote

import prov
import pytest
from prov.identifier import Namespace
from prov.model import (
    ProvActivity,
    ProvAgent,
    ProvAssociation,
    ProvAttribution,
    ProvDerivation,
    ProvDocument,
    ProvEntity,
    ProvGeneration,
    ProvUsage,
)

from graph_service.actors import actor_key
from graph_service.domain import Draft
from graph_service.errors import NotFound
from graph_service.journal.chain import GENESIS, Entry, seal
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.prov import FORMATS, NAMESPACE_URI, prov_document, serialize
from graph_service.state import StoreState

T0 = 1_700_000_000_000  # 2023-11-14T22:13:20Z; entry n is written 1.001 s after entry n - 1
GS = Namespace("gs", NAMESPACE_URI)
SPEAKER = 'ann "smith"/é'  # a name no PROV-N local part can hold as it stands
ACTOR = actor_key(SPEAKER)  # the actor it names ("ann-smith/é": still nothing PROV-N holds as it stands)
READS = {"prov-json": {"format": "json"}, "prov-n": {"format": "provn"},
         "prov-o": {"format": "rdf", "rdf_format": "turtle"}}
# rdflib 7.6 calls its own deprecated Dataset API while prov reads Turtle with it.
reads_turtle = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib")


def uri(kind: str, id: str | int) -> str:
    return f"{NAMESPACE_URI}{kind}/{quote(str(id), safe='')}"


class Store:
    """A journal written in memory and the state it gives, as the service writes them."""

    def __init__(self) -> None:
        self.state = StoreState()
        self.entries: list[Entry] = []

    def write(self, by: str, draft: Draft) -> dict:
        prev = self.entries[-1].hash if self.entries else GENESIS
        entry = seal(prev, len(self.entries) + 1, draft.op, by, T0 + 1_001 * len(self.entries), draft.payload)
        self.entries.append(entry)
        return self.state.apply(entry).result


@pytest.fixture(scope="module")
def store() -> Store:
    """1-2 a premise and an item derived from it; 3-4 a camera's row; 5 a message; 6 a belief resting on the
    derived item and the camera's row; 7 the premise retracted (and with it what rests on it); 8 a note;
    9 the message marked inaccurate."""
    s = Store()
    k = s.state.knowledge
    s.premise = s.write("ann", planning.plan_add(k, {"kind": "fact", "body": {"s": "abt:1", "r": "same_as",
                                                                             "o": "buy:2"}, "source": "person"},
                                                 by="ann"))["id"]
    s.derived = s.write("bob", planning.plan_add(k, {"kind": "fact", "body": {"s": "abt:1", "r": "brand", "o": "acme"},
                                                     "source": "outcome", "derived_from": [s.premise]},
                                                 by="bob"))["id"]
    s.write("ops", s.state.stream.plan_declare("cam 1"))
    s.write("cam 1", s.state.stream.plan_observe("cam 1", 3, "seen", "door"))
    said = s.write("ann", s.state.statements.plan_say("The door is open.", SPEAKER, 4))
    s.said_belief, s.said_evidence = said[0]["belief"], said[0]["evidence"]
    created = s.write("carol", s.state.beliefs.plan("belief.create", {"proposition": "acme makes doors", "evidence": [
        {"weight": 0.8, "family": "actor:ann", "root_kind": "item", "root_ids": [s.derived]},
        {"weight": 0.5, "family": "sensor", "root_kind": "observation", "root_ids": ["obs-4-0"]}]}))
    s.belief, (s.on_item, s.on_camera) = created["created"][0], created["evidence"]
    s.write("ann", planning.plan_retract(k, s.premise, "wrong label"))
    s.write("ann", plan_note("done"))
    s.write("ops", s.state.beliefs.plan("belief.correct", {"kind": "inaccurate", "root_kind": "observation",
                                                            "root_id": "obs-5-0", "reason": "misheard"}))
    return s


def pairs(doc: ProvDocument, kind: type) -> set[tuple[str, str]]:
    """(first, second) formal attribute of every record of one relation kind, as URIs."""
    return {(r.formal_attributes[0][1].uri, r.formal_attributes[1][1].uri) for r in doc.get_records(kind)}


def ids(doc: ProvDocument, kind: type) -> set[str]:
    return {r.identifier.uri for r in doc.get_records(kind)}


def test_the_whole_store_maps_to_entities_activities_and_agents(store: Store) -> None:
    doc = prov_document(store.state, store.entries)
    assert ids(doc, ProvActivity) == {uri("entry", e.seq) for e in store.entries}
    assert ids(doc, ProvEntity) == {
        uri("item", store.premise), uri("item", store.derived), uri("observation", "obs-4-0"),
        uri("observation", "obs-5-0"), uri("assertion", "asr-5-0"), uri("belief", store.said_belief),
        uri("belief", store.belief), uri("evidence", store.said_evidence), uri("evidence", store.on_item),
        uri("evidence", store.on_camera)}
    assert ids(doc, ProvAgent) == {
        *(uri("principal", p) for p in ("ann", "bob", "ops", "cam 1", "carol")), uri("actor", "cam-1"),
        uri("actor", ACTOR), uri("family", "actor:ann"), uri("family", "sensor"), uri("family", f"actor:{ACTOR}")}


def test_the_relations_say_what_rests_on_what_and_who_wrote_it(store: Store) -> None:
    doc = prov_document(store.state, store.entries)
    derived = pairs(doc, ProvDerivation)
    assert (uri("item", store.derived), uri("item", store.premise)) in derived
    assert {(uri("belief", store.belief), uri("evidence", e)) for e in (store.on_item, store.on_camera)} <= derived
    assert (uri("evidence", store.on_item), uri("item", store.derived)) in derived
    assert (uri("evidence", store.on_camera), uri("observation", "obs-4-0")) in derived
    assert (uri("evidence", store.said_evidence), uri("observation", "obs-5-0")) in derived
    assert (uri("assertion", "asr-5-0"), uri("observation", "obs-5-0")) in derived
    attributed = pairs(doc, ProvAttribution)
    assert (uri("evidence", store.on_item), uri("family", "actor:ann")) in attributed
    assert (uri("evidence", store.on_camera), uri("family", "sensor")) in attributed
    assert (uri("item", store.derived), uri("principal", "bob")) in attributed
    assert (uri("belief", store.belief), uri("principal", "carol")) in attributed
    assert (uri("observation", "obs-4-0"), uri("actor", "cam-1")) in attributed
    assert (uri("observation", "obs-5-0"), uri("actor", ACTOR)) in attributed
    assert (uri("assertion", "asr-5-0"), uri("actor", ACTOR)) in attributed
    used = pairs(doc, ProvUsage)
    assert (uri("entry", 2), uri("item", store.premise)) in used  # the add named its premise
    assert (uri("entry", 6), uri("item", store.derived)) in used  # the belief's evidence rests on it
    assert (uri("entry", 7), uri("item", store.premise)) in used  # the retraction named it
    assert (uri("entry", 9), uri("observation", "obs-5-0")) in used  # the correction named it
    assert pairs(doc, ProvAssociation) == {(uri("entry", e.seq), uri("principal", e.by)) for e in store.entries}


def test_every_entity_was_generated_by_the_one_entry_that_first_wrote_it(store: Store) -> None:
    doc = prov_document(store.state, store.entries)
    generated = pairs(doc, ProvGeneration)
    assert sorted(e for e, _ in generated) == sorted(ids(doc, ProvEntity))  # each once
    assert (uri("item", store.derived), uri("entry", 2)) in generated
    assert (uri("observation", "obs-5-0"), uri("entry", 5)) in generated
    assert (uri("evidence", store.on_camera), uri("entry", 6)) in generated


def test_statuses_confidences_and_times_are_recorded(store: Store) -> None:
    doc = prov_document(store.state, store.entries)
    by_id = {r.identifier.uri: r for r in doc.get_records() if r.identifier is not None}
    assert by_id[uri("item", store.derived)].get_attribute(GS["status"]) == {"retracted"}
    belief = store.state.beliefs.beliefs[store.belief]
    assert by_id[uri("belief", store.belief)].get_attribute(GS["confidence"]) == {belief.confidence}
    assert by_id[uri("evidence", store.on_item)].get_attribute(GS["status"]) == {"retracted"}
    assert by_id[uri("evidence", store.on_camera)].get_attribute(GS["status"]) == {"live"}
    assert by_id[uri("observation", "obs-5-0")].get_attribute(GS["inaccurate"]) == {True}
    assert by_id[uri("evidence", store.said_evidence)].get_attribute(GS["status"]) == {"retracted"}
    assert by_id[uri("observation", "obs-4-0")].get_attribute(GS["inaccurate"]) == set()
    assert by_id[uri("entry", 6)].get_startTime() == datetime(2023, 11, 14, 22, 13, 25, 5_000, tzinfo=UTC)  # to the ms


@pytest.mark.parametrize("fmt", FORMATS)
@reads_turtle
def test_each_format_reads_back_as_the_same_document(store: Store, fmt: str) -> None:
    doc = prov_document(store.state, store.entries)
    text = serialize(doc, fmt)
    assert prov.read(io.StringIO(text), **READS[fmt]) == doc
    if fmt == "prov-json":
        assert ProvDocument.deserialize(content=text, format="json") == doc


def test_one_node_is_its_derivation_and_nothing_else(store: Store) -> None:
    doc = prov_document(store.state, store.entries, node=store.belief)
    assert ids(doc, ProvEntity) == {
        uri("belief", store.belief), uri("evidence", store.on_item), uri("evidence", store.on_camera),
        uri("item", store.derived), uri("item", store.premise), uri("observation", "obs-4-0")}
    # the entries that wrote those, and the retraction that read one of them; not the message, nor the note
    assert ids(doc, ProvActivity) == {uri("entry", s) for s in (1, 2, 4, 6, 7)}
    assert ids(doc, ProvAgent) == {uri("principal", p) for p in ("ann", "bob", "cam 1", "carol")} | {
        uri("actor", "cam-1"), uri("family", "actor:ann"), uri("family", "sensor")}
    kept = [e for e in store.entries if e.seq in (1, 2, 4, 6, 7)]
    assert prov_document(store.state, kept, node=store.belief) == doc  # only the entries it needs suffice


def test_a_node_that_rests_on_nothing_is_alone_with_its_entry(store: Store) -> None:
    doc = prov_document(store.state, store.entries, node="obs-4-0")
    assert ids(doc, ProvEntity) == {uri("observation", "obs-4-0")}
    assert ids(doc, ProvActivity) == {uri("entry", 4), uri("entry", 6)}  # written by 4, read by the belief's 6


def test_an_unknown_node_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound, match="no item, observation, assertion, belief or evidence row has the id 'k-nope'"):
        prov_document(store.state, store.entries, node="k-nope")


def test_entries_newer_than_the_state_are_left_out(store: Store) -> None:
    later = seal(store.entries[-1].hash, len(store.entries) + 1, "note", "zed", T0, {"text": "later"})
    doc = prov_document(store.state, [*store.entries, later])
    assert uri("entry", later.seq) not in ids(doc, ProvActivity)
    assert uri("principal", "zed") not in ids(doc, ProvAgent)
