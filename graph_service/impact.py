"""What falls if this goes: every item and belief a retraction (or an observation marked inaccurate)
would change, computed without writing anything. Pure.

The knowledge part is `KnowledgeState.impact` (the retraction's own incremental evaluation over an
overlay). The belief part runs the belief layer's own cascade (`roots_gone`, `roots_back`: rows
resting on what falls go, rows whose roots return come back, then what rests on those beliefs
settles) on a sandbox: a shallow copy of the layer whose record maps copy a record the first time
the cascade reads it. So the answer is what the write would do, by construction, the state is not
touched, and the cost is what the cascade touches, never the store.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any, TypeVar

from graph_service.beliefs.state import BeliefState
from graph_service.journal.chain import Entry
from graph_service.knowledge.state import KnowledgeState
from graph_service.state import RETRACTED, StoreState

K = TypeVar("K")
V = TypeVar("V")

# The belief layer's maps a cascade may read and change: each gets a copy-on-read overlay.
_OVERLAID = ("beliefs", "rows", "links", "_partners", "_by_root", "patterns", "_by_text", "_by_subject",
             "_tallies")


class CopyOnRead(MutableMapping[K, V]):
    """A map that reads through to `base` and hands out deep copies, kept here: writes, and changes
    made to what it handed out, stay here; `base` is never changed."""

    def __init__(self, base: MutableMapping[K, V]) -> None:
        self._base = base
        self._local: dict[K, V] = {}
        self._deleted: set[K] = set()

    def __getitem__(self, key: K) -> V:
        if key in self._local:
            return self._local[key]
        if key in self._deleted:
            raise KeyError(key)
        value = copy.deepcopy(self._base[key])
        self._local[key] = value
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._deleted.discard(key)
        self._local[key] = value

    def __delitem__(self, key: K) -> None:
        if key not in self:
            raise KeyError(key)
        self._local.pop(key, None)
        self._deleted.add(key)

    def __contains__(self, key: object) -> bool:
        return key in self._local or (key not in self._deleted and key in self._base)

    def __iter__(self) -> Iterator[K]:
        # A whole-map walk would cost the store: the belief cascade never does one.
        raise TypeError("a sandbox map is read by key only")

    def __len__(self) -> int:
        raise TypeError("a sandbox map is read by key only")


def _sandbox(beliefs: BeliefState) -> BeliefState:
    sandbox = copy.copy(beliefs)
    for name in _OVERLAID:
        setattr(sandbox, name, CopyOnRead(getattr(beliefs, name)))
    sandbox.refusals = []  # appended to only; the sandbox's own are never read
    sandbox.running_fingerprint = copy.copy(beliefs.running_fingerprint)  # changed in place by a cascade
    return sandbox


@dataclass(frozen=True)
class StoreImpact:
    """Item status changes {id: (before, after)}, items whose support alone changes, and belief
    changes {id: (before, after)}, each a {status, confidence, version} snapshot."""

    items: dict[str, tuple[str, str]]
    supports: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    beliefs: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]]


def store_impact(state: StoreState, items: Iterable[str] = (), observations: Iterable[str] = ()) -> StoreImpact:
    """What retracting `items` and marking `observations` inaccurate would change, the state unchanged.

    Equal to what those writes then do (the items retracted in one entry or one after another).
    Ids never written are ignored (the API checks them first)."""
    marked = [o for o in dict.fromkeys(observations) if state.has_observation(o)]
    return impact_on(state.knowledge, lambda: _sandbox(state.beliefs), state.present, state.position + 1,
                     items, marked)


def impact_on(knowledge: KnowledgeState, beliefs: Callable[[], BeliefState], present: Callable[[str, str], bool],
              seq: int, items: Iterable[str], observations: Iterable[str]) -> StoreImpact:
    """What retracting `items` and marking `observations` (each one written) inaccurate at position `seq`
    would change, on these states: a knowledge state the retraction's evaluation runs on (it is not changed)
    and, made only when a belief may move, a belief state the cascade may change (a sandbox of the whole
    layer, or a scratch state that reads what the cascade touches: graph_service.from_graph.impact).
    `present(kind, id)`: whether an evidence root is present now (StoreState.present)."""
    found = knowledge.impact(items)
    statuses = found.status_changes()
    supports = {i: (before.support, after.support) for i, (before, after) in found.items.items()
                if before.status == after.status and before.support != after.support}
    gone = sorted(i for i, (before, after) in statuses.items() if after == RETRACTED != before)
    back = sorted(i for i, (before, after) in statuses.items() if before == RETRACTED != after)
    marked = sorted(dict.fromkeys(observations))
    if not (gone or back or marked):
        return StoreImpact(statuses, supports, {})
    sandbox = beliefs()
    entry = Entry(seq=seq, op="impact", by="impact", at=0, payload={})

    def present_after(root_kind: str, root_id: str) -> bool:
        if root_kind == "item" and root_id in statuses:
            return statuses[root_id][1] != RETRACTED
        return present(root_kind, root_id)

    changes: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]] = {}
    steps = [lambda: sandbox.roots_gone("item", gone, entry) if gone else None,
             lambda: sandbox.roots_back("item", back, entry, present_after) if back else None,
             lambda: sandbox.roots_gone("observation", marked, entry) if marked else None]
    for step in steps:
        applied = step()
        for belief, change in ((applied.result or {}).get("beliefs", {}) if applied else {}).items():
            first = changes.get(belief, (change["before"], change["after"]))[0]
            changes[belief] = (first, change["after"])
    moved = {b: (before, after) for b, (before, after) in sorted(changes.items())
             if before is None or (before["status"], before["confidence"]) != (after["status"], after["confidence"])}
    return StoreImpact(statuses, supports, moved)
