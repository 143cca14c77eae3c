"""The store as W3C PROV: what each thing rests on, the journal entry that wrote it, who stands behind it.

Pure apart from the `prov` library: `prov_document` reads a StoreState and the journal entries that
built it and returns a ProvDocument. Entities are items, observations (stream rows and messages),
assertions, beliefs and evidence rows; activities are journal entries, one each, started at the
entry's `at`; agents are principals (an entry's `by`), actors and evidence families.

  wasDerivedFrom     item → its premises, belief → its evidence, evidence → its roots,
                     assertion → the message it interprets
  wasGeneratedBy     every entity → the entry that first wrote it
  wasAttributedTo    item → the principals who asserted it, belief → its creator, evidence → its
                     family, observation → its observer or speaker, assertion → its actor
  used               entry → what its write read (premises of an add, the item a retraction names,
                     the belief evidence is added to, the roots that evidence rests on, ...)
  wasAssociatedWith  entry → its principal

Identifiers are `gs:<kind>/<id>` in the namespace `urn:graph-service:`, the id percent-encoded so
that every serialisation writes and reads back the same IRI. Statuses and confidences are the
attributes `gs:status` and `gs:confidence`; they are the store's current ones (an entity here is the
thing as the store holds it now, not one version of it).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from prov.constants import PROV_LABEL, PROV_TYPE
from prov.identifier import QualifiedName
from prov.model import ProvDocument

from graph_service.beliefs.records import family_props
from graph_service.beliefs.vocabulary import ROOT_LABELS
from graph_service.errors import NotFound
from graph_service.journal.chain import Entry, canonical_json
from graph_service.knowledge import ops
from graph_service.knowledge.items import content_id
from graph_service.knowledge.walks import upstream
from graph_service.questions import ANSWER_QUESTION
from graph_service.statements import OP_SAY, assertion_id, message_observation_id

if TYPE_CHECKING:
    from graph_service.state import StoreState

PREFIX: Final = "gs"
NAMESPACE_URI: Final = "urn:graph-service:"

FORMATS: Final = ("prov-json", "prov-n", "prov-o")
"""The serialisations `serialize` writes: PROV-JSON, PROV-N and PROV-O (as Turtle)."""
_SERIALIZERS: Final = {"prov-json": ("json", {}), "prov-n": ("provn", {}), "prov-o": ("rdf", {"rdf_format": "turtle"})}

ITEM, OBSERVATION, ASSERTION, BELIEF, EVIDENCE = "item", "observation", "assertion", "belief", "evidence"
ENTRY, PRINCIPAL, ACTOR, FAMILY = "entry", "principal", "actor", "family"
_KIND_TYPES: Final = {ITEM: "Item", OBSERVATION: "Observation", ASSERTION: "Assertion", BELIEF: "Belief",
                      EVIDENCE: "Evidence", ENTRY: "Entry", PRINCIPAL: "Principal", ACTOR: "Actor", FAMILY: "Family"}


def local_name(kind: str, id: str) -> str:
    """The local part of one node's, entry's or agent's identifier: `<kind>/<id percent-encoded>`."""
    return f"{kind}/{quote(id, safe='')}"


@dataclass
class _Entity:
    kind: str
    id: str
    generated_at: int
    attributes: dict[str, Any]
    derived_from: list[str] = field(default_factory=list)
    attributed_to: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Activity:
    entry: Entry
    used: tuple[str, ...]


def prov_document(state: StoreState, entries: Iterable[Entry], node: str | None = None) -> ProvDocument:
    """The PROV document of the whole store, or of one node's derivation.

    `entries` are the journal's entries in order (at least every one up to `state.position`; later
    ones are ignored, being newer than the state). With `node` (an item, observation, assertion,
    belief or evidence id) the document holds that node and everything it rests on transitively,
    the entries that wrote any of those or read them, and the agents behind them; the result is the
    same whichever superset of those entries is given. NotFound when no node has that id.
    """
    activities, entities = _read_journal(state, entries)
    entities.update(_state_entities(state))
    for root_kind, root_id in state.beliefs.inaccurate_roots:
        if root_id in entities and entities[root_id].kind == root_kind:
            entities[root_id].attributes["inaccurate"] = True
    if node is None:
        chosen = set(entities)
        kept = activities
    else:
        if node not in entities:
            raise NotFound(f"no item, observation, assertion, belief or evidence row has the id {node!r}", field="id")
        chosen = {node, *upstream([node], lambda i: [d for d in entities[i].derived_from if d in entities],
                                  lambda _i: ())}
        written = {entities[i].generated_at for i in chosen}
        kept = [a for a in activities if a.entry.seq in written or chosen.intersection(a.used)]
    return _document(entities, chosen, kept)


def serialize(document: ProvDocument, format: str) -> str:
    """The document as text in one of FORMATS (PROV-O as Turtle)."""
    name, options = _SERIALIZERS[format]
    with warnings.catch_warnings():
        # rdflib 7.6 calls its own deprecated Dataset API while writing what prov hands it.
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="rdflib")
        return document.serialize(format=name, **options)


# ---- reading the store ---------------------------------------------------------------------------


def _read_journal(state: StoreState, entries: Iterable[Entry]) -> tuple[list[_Activity], dict[str, _Entity]]:
    """One activity per entry, and the entities only the journal holds: messages and their assertions."""
    activities: list[_Activity] = []
    entities: dict[str, _Entity] = {}
    for entry in entries:
        if entry.seq > state.position:
            break
        activities.append(_Activity(entry, tuple(dict.fromkeys(_read_by(state, entry)))))
        if entry.op == OP_SAY:
            entities.update((e.id, e) for e in _statement_entities(entry))
    return activities, entities


def _statement_entities(entry: Entry) -> Iterator[_Entity]:
    p = entry.payload
    message = message_observation_id(entry.seq)
    yield _Entity(OBSERVATION, message, entry.seq,
                  {"kind": "message", "text": p.get("text"), "tick": p.get("tick"), PROV_LABEL: p.get("text")},
                  attributed_to=[(ACTOR, p["speaker"])])
    for a in p.get("assertions") or ():
        yield _Entity(ASSERTION, assertion_id(entry.seq, a["index"]), entry.seq,
                      {"proposition": a["proposition"], "stance": a["stance"], "certainty": a["certainty"],
                       "factual": a["factual"], PROV_LABEL: a["claim"]},
                      derived_from=[message], attributed_to=[(ACTOR, a["actor"])])


def _state_entities(state: StoreState) -> dict[str, _Entity]:
    """Items, stream observations, beliefs and evidence rows as the state holds them."""
    found: dict[str, _Entity] = {}
    for rec in state.knowledge.items.values():
        props = rec.props or rec.materialise()
        authors = dict.fromkeys(a.assertion.by for a in rec.assertions)
        found[rec.id] = _Entity(ITEM, rec.id, rec.learned_at,
                                {"status": rec.status, "kind": rec.kind, "source": props["source"],
                                 "body": canonical_json(rec.body), PROV_LABEL: props["summary"]},
                                derived_from=rec.premises(live_only=False),
                                attributed_to=[(PRINCIPAL, by) for by in authors])
    for obs in state.stream.observations():
        found[obs.id] = _Entity(OBSERVATION, obs.id, obs.seq,
                                {"kind": obs.kind, "subject": obs.subject, "tick": obs.tick, "weight": obs.weight,
                                 "magnitude": obs.magnitude, PROV_LABEL: f"{obs.kind} {obs.subject}"},
                                attributed_to=[(ACTOR, obs.observer)])
    beliefs = state.beliefs
    for belief in beliefs.beliefs.values():
        found[belief.id] = _Entity(BELIEF, belief.id, belief.created_seq,
                                   {"status": belief.status, "confidence": belief.confidence,
                                    "epistemicKind": belief.epistemic_kind, "subject": belief.subject,
                                    "version": belief.version, PROV_LABEL: belief.proposition},
                                   derived_from=list(belief.evidence),
                                   attributed_to=[(PRINCIPAL, belief.created_by)])
    for row in beliefs.rows.values():
        rooted = row.root_kind in ROOT_LABELS
        found[row.id] = _Entity(EVIDENCE, row.id, row.created_seq,
                                {"status": "retracted" if row.retracted else "live", "direction": row.direction,
                                 "weight": row.weight, "credibility": row.credibility, "derivation": row.derivation,
                                 "rootKind": row.root_kind, "note": row.note},
                                derived_from=list(row.root_ids) if rooted else [],
                                attributed_to=[(FAMILY, row.family)])
    return found


def _read_by(state: StoreState, entry: Entry) -> Iterator[str]:
    """The ids of the nodes an entry's write read (see the module docstring); unknown ids are dropped later."""
    p, op = entry.payload, entry.op
    knowledge = state.knowledge
    if op == ops.ADD:
        item = content_id(p["kind"], p["body"], p.get("scope") or {})
        rec = knowledge.items.get(item)
        if rec is not None and rec.learned_at < entry.seq:
            yield item  # a second assertion of an item it found already written
        yield from p.get("derived_from") or ()
        if p.get("supersedes"):
            yield p["supersedes"]
    elif op in (ops.PROMOTE, ops.RETRACT, ops.ROLLBACK, ops.RETIRE, ops.RECONFIRM):
        yield p["id"]
    elif op == ops.USED:
        yield from p.get("ids") or ()
    elif op in (ops.FLAG, ops.END_FLAG):
        flag = knowledge.flags.get(f"flag-{entry.seq}" if op == ops.FLAG else p.get("flag", ""))
        yield from sorted(flag.covers) if flag else ()
    elif op == ops.RESOLVE:
        yield from sorted(knowledge.by_key.get(p.get("key", ""), ()))
    elif op == ops.SNAPSHOT:
        snapshot = knowledge.snapshots.get(f"snap-{entry.seq}", {})
        yield from (f["id"] for f in (*snapshot.get("facts", ()), *snapshot.get("hints", ())))
    elif op == ANSWER_QUESTION:
        for sub in p.get("knowledge") or ():
            yield from _read_by(state, Entry(seq=entry.seq, op=sub["op"], by=entry.by, at=entry.at,
                                             payload=sub["payload"]))
    elif op == "belief.create":
        if p.get("supersedes"):
            yield p["supersedes"]
        for row in p.get("evidence") or ():
            yield from _roots(row)
    elif op == "evidence.add":
        yield p["belief"]
        yield from _roots(p)
    elif op == "evidence.retract":
        yield p["evidence"]
    elif op in ("belief.pin", "belief.correct") and p.get("belief"):
        yield p["belief"]
    elif op == "belief.correct" and p.get("root_id"):
        yield p["root_id"]
    elif op == "belief.contradict":
        yield from (p["a"], p["b"])
    elif op == "belief.associate":
        yield from (o["id"] for o in p.get("observations") or ())


def _roots(row: dict[str, Any]) -> list[str]:
    return list(row.get("root_ids") or ()) if row.get("root_kind") in ROOT_LABELS else []


# ---- writing the document ------------------------------------------------------------------------


def _document(entities: dict[str, _Entity], chosen: set[str], activities: list[_Activity]) -> ProvDocument:
    doc = ProvDocument()
    # A namespace per document: a Namespace interns every name made in it, for as long as it lives.
    gs = doc.add_namespace(PREFIX, NAMESPACE_URI)

    def name(kind: str, id: str | int) -> QualifiedName:
        return gs[local_name(kind, str(id))]

    def attributes(kind: str, values: dict[Any, Any]) -> dict[Any, Any]:
        found: dict[Any, Any] = {PROV_TYPE: gs[_KIND_TYPES[kind]]}
        for key, value in values.items():
            if value is not None:
                found[key if isinstance(key, QualifiedName) else gs[key]] = value
        return found

    ordered = sorted(chosen, key=lambda i: (entities[i].kind, i))
    seqs = {a.entry.seq for a in activities}
    agents: set[tuple[str, str]] = set()
    for activity in activities:
        entry = activity.entry
        agents.add((PRINCIPAL, entry.by))
        doc.activity(name(ENTRY, entry.seq), startTime=_time(entry.at),
                     other_attributes=attributes(ENTRY, {"seq": entry.seq, "op": entry.op, "hash": entry.hash}))
    for entity_id in ordered:
        entity = entities[entity_id]
        agents.update(entity.attributed_to)
        doc.entity(name(entity.kind, entity_id), attributes(entity.kind, entity.attributes))
    for kind, agent in sorted(agents):
        extra = {"familyKind": family_props(agent)["kind"]} if kind == FAMILY else {}
        doc.agent(name(kind, agent), attributes(kind, {**extra, PROV_LABEL: agent}))
    for entity_id in ordered:
        entity = entities[entity_id]
        me = name(entity.kind, entity_id)
        for source in dict.fromkeys(entity.derived_from):
            if source in chosen:
                doc.wasDerivedFrom(me, name(entities[source].kind, source))
        if entity.generated_at in seqs:
            doc.wasGeneratedBy(me, name(ENTRY, entity.generated_at))
        for kind, agent in entity.attributed_to:
            doc.wasAttributedTo(me, name(kind, agent))
    for activity in activities:
        me = name(ENTRY, activity.entry.seq)
        for used in activity.used:
            if used in chosen:
                doc.used(me, name(entities[used].kind, used))
        doc.wasAssociatedWith(me, name(PRINCIPAL, activity.entry.by))
    return doc


def _time(at: int) -> datetime:
    """An entry's `at` (epoch milliseconds) as an exact UTC time."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=at)
