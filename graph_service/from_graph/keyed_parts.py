"""Keyed parts of a store's state as the graph holds them, with what the entries the graph does not hold yet
changed (from_graph.stream, from_graph.questions): a domain whose rules read a few parts by key holds none of
them, and reads each as of the last entry applied without folding any history.

A part the rules change is kept here, with the position that changed it, until the graph holds that position;
any other is read from the graph as it is now, the keys a plan or an application needs in one statement (each
thread reads its own, and forgets it when its next one begins). Why that is exact: a part no entry past the
graph's position changed is the same at that position and at the entry applied (the others are kept here). The
graph can be past an entry only when another writer projected it; then this process's projection of it is
refused by the projected position's guard, and a domain built on this gives what applying it gives from the
entry alone. A plan read past the journal's head is caught by the append's compare-and-set, and made again."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

from graph_service.storage.port import GraphPort

Needs = dict[str, list[str]]
"""What a plan or an application reads: for each need (a parameter of the domain's statement), the keys."""


class KeyedParts(ABC):
    """The parts as of the last entry applied. A subclass names its needs and the parts each gives (`NEEDS`, the
    first part of each being the one that says whether a key was read) and reads them (`_fetch`)."""

    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __init__(self, graph: GraphPort, held: Callable[[], int]) -> None:
        self.graph, self.held = graph, held
        self._ahead: dict[tuple[str, str], tuple[int, Any]] = {}
        self._ahead_order: deque[tuple[int, tuple[str, str]]] = deque()
        self._prepared: dict[int, dict[tuple[str, str], Any]] = {}
        # What a bulk load read ahead for a window of entries: a key an entry changes leaves it (`keep`), so what
        # is left is as the graph held it and no entry since changed it.
        self._window: dict[tuple[str, str], Any] = {}
        # What the last plan read (outside an application), with the position the graph held when it read it: a
        # write's plan reads as of its head, and its own entry, next, is applied on the same (`prepare`).
        self._planned: tuple[int, dict[tuple[str, str], Any]] | None = None
        self._local = threading.local()
        self._need_of = {part: need for need, parts in self.NEEDS.items() for part in parts}
        self.reads = 0  # statements run

    @abstractmethod
    def _fetch(self, wanted: Needs) -> dict[tuple[str, str], Any]:
        """Read these keys in one statement: {(part, key): value} for those the graph holds (the rest are None)."""

    def reset(self) -> None:
        """Forget what entries changed (a replay from the start follows)."""
        self._ahead.clear()
        self._ahead_order.clear()
        self._prepared.clear()
        self._window = {}
        self._planned = None

    @contextmanager
    def reading(self, needs: Needs, seq: int | None = None) -> Iterator[None]:
        """While a plan or an application runs in this thread: what `needs` names is read first, in one statement
        (taking what was read for entry `seq` beforehand: `prepare`), and what it reads is kept for it alone. A
        read outside one reads the graph each time: what an earlier one read may have changed since."""
        held = self.held()
        found = self._prepared.pop(seq, {}) if seq is not None else {}
        window = self._window
        if window:
            for need, keys in needs.items():
                for part in self.NEEDS[need]:
                    found.update({(part, k): window[(part, k)] for k in keys if (part, k) in window})
        self._read(needs, found)
        self._local.found = found
        try:
            yield
        finally:
            self._local.found = None
            if seq is None:
                self._planned = held, found

    def give(self, part: str, values: Mapping[str, Any]) -> None:
        """Within a plan or an application (`reading`), these keys of `part` were read already (a whole read)."""
        found = getattr(self._local, "found", None)
        if found is not None:
            found.update({(part, key): value for key, value in values.items() if (part, key) not in found})

    def kept(self, part: str) -> dict[str, Any]:
        """What the entries the graph does not hold yet changed of `part`, by key."""
        held = self.held()
        return {key: value for (kept_part, key), (seq, value) in list(self._ahead.items())
                if kept_part == part and seq > held}

    def prepare(self, seq: int, needs: Needs) -> None:
        """Read what applying entry `seq` will read, now (off the event loop), for its application to take (added to
        what was read for it already)."""
        held = self.held()
        found = self._prepared.get(seq, {})  # what was read for it already
        planned = self._planned
        if planned is not None and planned[0] == seq - 1:
            # A plan read these as of the entry before this one: the graph held that position and nothing past it
            # (an entry past it would have won the append, and this one would not be prepared), so they are what
            # this entry's application reads there, with no statement.
            found = {**planned[1], **found}
        self._read(needs, found)
        self._prepared = {s: f for s, f in self._prepared.items() if s > held}
        self._prepared[seq] = found

    def prepared(self, seq: int, part: str, key: str) -> Any:
        """What `prepare` read for entry `seq` of `part` at `key` (None: nothing there, or not read)."""
        return self._prepared.get(seq, {}).get((part, key))

    def read_ahead(self, needs: Iterable[Needs]) -> None:
        """A bulk load about to apply a window of entries reads what they read in one statement, not one an entry
        (a hint: what an application reads is the same either way)."""
        merged: Needs = {}
        for one in needs:
            for need, keys in one.items():
                merged.setdefault(need, []).extend(keys)
        window: dict[tuple[str, str], Any] = {}
        self._read(merged, window)
        self._window = window

    def get(self, part: str, key: str) -> Any:
        """The part at `key` as of the last entry applied (None: nothing there)."""
        ahead = self._ahead.get((part, key))
        if ahead is not None and ahead[0] > self.held():
            return ahead[1]
        found: dict[tuple[str, str], Any] | None = getattr(self._local, "found", None)
        if found is None:
            found = {}  # outside a plan or an application: nothing read before is current
        if (part, key) not in found:
            if (part, key) in self._window:
                return self._window[(part, key)]
            self._read({self._need_of[part]: [key]}, found)
        return found[(part, key)]

    def keep(self, part: str, key: str, value: Any, seq: int) -> None:
        """Entry `seq` changed the part at `key` to `value`: kept until the graph holds that entry."""
        self._ahead[(part, key)] = (seq, value)
        self._ahead_order.append((seq, (part, key)))
        self._window.pop((part, key), None)
        found = getattr(self._local, "found", None)
        if found is not None:  # once the graph holds the entry, the key is read from it again
            found.pop((part, key), None)
        self._forget_held()

    def _forget_held(self) -> None:
        held = self.held()
        order = self._ahead_order
        while order and order[0][0] <= held:
            seq, key = order.popleft()
            if self._ahead.get(key, (None,))[0] == seq:
                del self._ahead[key]

    @property
    def ahead(self) -> int:
        """How many parts are kept for entries the graph does not hold yet."""
        self._forget_held()
        return len(self._ahead)

    def _read(self, needs: Needs, found: dict[tuple[str, str], Any]) -> None:
        held = self.held()
        wanted: Needs = {}
        for need, keys in needs.items():
            part = self.NEEDS[need][0]
            fresh = [k for k in dict.fromkeys(keys) if (part, k) not in found
                     and not ((part, k) in self._ahead and self._ahead[(part, k)][0] > held)]
            if fresh:
                wanted[need] = fresh
        if not wanted:
            return
        read = self._fetch(wanted)
        self.reads += 1
        for need, keys in wanted.items():
            for part in self.NEEDS[need]:
                for key in keys:
                    found[(part, key)] = read.get((part, key))
