"""Units: what the state rules decide together (a key's items, or a keyless item alone), and the unit
graph's edges as the rules read them: which units a unit reads (`predecessors`) and which read it
(`successors`), and when it was first learned (what `evaluate` releases by).

Pure: plain functions over the state's records; no I/O (a state read from the graph reads what these ask
for ahead, `read_ahead`, a unit's items at a time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph_service.partial_reads import read_ahead

if TYPE_CHECKING:
    from graph_service.knowledge.records import ItemRecord
    from graph_service.knowledge.state import KnowledgeState


def unit_of(rec: ItemRecord) -> str:
    """The unit an item is decided in: its key's ('k:' + key), or its own ('i:' + id) when keyless."""
    return "k:" + rec.key if rec.key is not None else "i:" + rec.id


def superseded_item(state: KnowledgeState, supersedes: str | None) -> ItemRecord | None:
    """The item an assertion supersedes, when it names one. No lookup when it names none: on a state read from the
    graph a lookup is a round trip, and one for a key no item has (the empty id) cost every addition one."""
    return state.items.get(supersedes) if supersedes else None


def unit_members(state: KnowledgeState, unit: str) -> list[ItemRecord]:
    """Every item of a unit, live or not, by id."""
    if unit.startswith("k:"):
        ids = sorted(state.by_key.get(unit[2:], ()))
        read_ahead(state.items, ids)
        return [state.items[i] for i in ids]
    rec = state.items.get(unit[2:])
    return [] if rec is None else [rec]


def upstream_items(state: KnowledgeState, rec: ItemRecord) -> list[str]:
    """What `predecessors` reads of a live member: its live assertions' premises and its superseders."""
    return [*(p for a in rec.live() for p in a.premises), *state.superseded_by.get(rec.id, ())]


def downstream_items(state: KnowledgeState, rec: ItemRecord) -> list[str]:
    """What `successors` reads of a live member: its dependents and what its live assertions supersede."""
    return [*state.dependents_of.get(rec.id, ()), *(a.supersedes for a in rec.live() if a.supersedes)]


def cites(rec: ItemRecord, premise: str) -> bool:
    """Does one of the item's live assertions rest on `premise`?"""
    return any(premise in a.premises for a in rec.live())


def successors(state: KnowledgeState, unit: str) -> set[str]:
    """The units `evaluate` decides after this one: live dependents' units and live supersede targets'."""
    found: set[str] = set()
    members = unit_members(state, unit)
    read_ahead(state.items, [i for rec in members if rec.live() for i in downstream_items(state, rec)])
    for rec in members:
        live = rec.live()
        if not live:
            continue
        for dep in state.dependents_of.get(rec.id, ()):
            drec = state.items.get(dep)
            if drec is not None and cites(drec, rec.id):
                found.add(unit_of(drec))
        for a in live:
            target = superseded_item(state, a.supersedes)
            if target is not None and target.live():
                found.add(unit_of(target))
    found.discard(unit)
    return found


def predecessors(state: KnowledgeState, unit: str) -> set[str]:
    """The units `evaluate` decides before this one: live premises' units and live superseders'
    (the mirror of `successors`)."""
    found: set[str] = set()
    members = unit_members(state, unit)
    read_ahead(state.items, [i for rec in members if rec.live() for i in upstream_items(state, rec)])
    for rec in members:
        live = rec.live()
        if not live:
            continue
        for a in live:
            for p in a.premises:
                prec = state.items.get(p)
                if prec is not None and prec.live():
                    found.add(unit_of(prec))
        for other in state.superseded_by.get(rec.id, ()):
            orec = state.items.get(other)
            if orec is not None and any(x.supersedes == rec.id for x in orec.live()):
                found.add(unit_of(orec))
    found.discard(unit)
    return found


def first_learned(state: KnowledgeState, unit: str) -> int | None:
    """The journal position of the unit's earliest live assertion (what `evaluate` releases by),
    None when nothing in it is live (it is no unit of `evaluate` then)."""
    seqs = [a.seq for rec in unit_members(state, unit) for a in rec.live()]
    return min(seqs) if seqs else None
