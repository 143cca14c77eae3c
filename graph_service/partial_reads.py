"""Maps that hold some keys of a store's parts and read any other through a source the caller gives, so a
pure rule applied on them reads only what it touches (knowledge.partial, beliefs.partial). Pure: what is read
comes from a function, never from a driver."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final


class NeedMore(LookupError):
    """The scratch state was asked for what it was not given: `part` at `key` (WHOLE: every key)."""

    def __init__(self, part: str, key: Hashable) -> None:
        super().__init__(f"{part}[{key!r}] was not fetched")
        self.part, self.key = part, key


class _EveryKey:
    """The key that stands for every key of a part. An object of its own, not a string: a key a request gives (an
    id) can be any string, and must never be taken for it."""

    def __repr__(self) -> str:
        return "<every key>"


WHOLE: Final = _EveryKey()


Answer = Callable[[str, Hashable], Mapping[str, Mapping[Any, Any]]]
"""A source of the store's parts: `answer(part, key)` gives {part: {key: what is there}} for the key asked
(None: nothing there), and any more keys, of any part, it chose to send with it."""

AnswerMany = Callable[[str, list[Any]], Mapping[str, Mapping[Any, Any]]]
"""A source's answer at several keys of one part at once (one round trip), in the shape of `Answer`'s."""


class Reader:
    """What the scratch states of one application read through: on a miss, the source's answer is fetched
    once, kept in `fetched` as the store held it, and given to every map of every state registered, each
    keeping its own copy of what the rules change in place (see `convert`)."""

    def __init__(self, answer: Answer, fetched: Fetched, answer_many: AnswerMany | None = None) -> None:
        self.answer, self.fetched, self.answer_many = answer, fetched, answer_many
        self.targets: list[dict[str, Any]] = []
        self.reads = 0

    def register(self, targets: dict[str, Any]) -> None:
        """Give these part-keyed targets (each with `absorb`) what was fetched so far, and all that follows."""
        self.targets.append(targets)
        for part, found in self.fetched.parts.items():
            if found and part in targets:
                targets[part].absorb(found)

    def read(self, part: str, key: Hashable) -> None:
        """Fetch `part` at `key` from the source (WHOLE: every key of it, which the source marks by sending
        WHOLE among them); NeedMore if it did not send it."""
        found = self.answer(part, key)
        if key not in found.get(part, {}):
            raise NeedMore(part, key)
        self.reads += 1
        self._take(found)

    def give(self, part: str, found: Mapping[Any, Any]) -> None:
        """Take `part` at these keys as the source would send it, from a caller that knows it already (no read)."""
        self._take({part: found})

    def read_ahead(self, part: str, keys: list[Any]) -> None:
        """Fetch `part` at these keys in one round, from a source that answers several at once (`answer_many`);
        nothing from one that does not (each key is then read when it is asked for). A hint: a key the source
        did not send is read when asked for, as any other."""
        if self.answer_many is not None and keys:
            self.reads += 1
            self._take(self.answer_many(part, keys))

    def _take(self, found: Mapping[str, Mapping[Any, Any]]) -> None:
        for other, entries in found.items():
            new = {k: v for k, v in entries.items() if k is not WHOLE and k not in self.fetched.parts.get(other, {})}
            self.fetched.add(other, new)
            for targets in self.targets:
                if other in targets:
                    targets[other].absorb(new)
                    if WHOLE in entries:
                        targets[other].whole = True


def _as_set(value: Any) -> Any:
    return set(value) if value else None


def _as_list(value: Any) -> Any:
    return list(value) if value else None


def _as_is(value: Any) -> Any:
    return value if value is not None and value != () else None


class PartialMap(dict):  # type: ignore[type-arg]
    """A map holding some keys of the whole store's: a key it knows (present or known absent) reads as the
    whole map would; any other is read through `reader` first (NeedMore when there is none). Writing a key
    makes it known (the rules then own it). What is absorbed is converted by `convert` (a copy of what the
    rules change in place; None: known absent)."""

    def __init__(self, part: str, reader: Reader | None, convert: Callable[[Any], Any] = _as_is) -> None:
        super().__init__()
        self.part, self.reader, self.convert = part, reader, convert
        self.known: set[Any] = set()
        self.whole = False  # every key of the part read (WHOLE): it iterates as the whole map would

    def absorb(self, found: Mapping[Any, Any]) -> None:
        """Take what the store holds at keys not known yet (a known key may have been changed by the rules)."""
        for key, value in found.items():
            if key not in self.known:
                self.known.add(key)
                held = self.convert(value)
                if held is not None:
                    dict.__setitem__(self, key, held)

    def _check(self, key: Any) -> None:
        if key not in self.known:
            if self.reader is None:
                raise NeedMore(self.part, key)
            self.reader.read(self.part, key)

    def read_ahead(self, keys: Iterable[Any]) -> None:
        """Read in one round those of `keys` not known yet (see `read_ahead`)."""
        if self.reader is not None:
            missing = [k for k in dict.fromkeys(keys) if k not in self.known]
            if len(missing) > 1:  # one key is read as it is asked for, in the same one round
                self.reader.read_ahead(self.part, missing)

    def __getitem__(self, key: Any) -> Any:
        self._check(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._check(key)
        return super().__contains__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._check(key)
        return super().setdefault(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._check(key)
        return super().pop(key, *default)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.known.add(key)
        super().__setitem__(key, value)

    def update(self, *others: Any, **more: Any) -> None:
        for key, value in dict(*others, **more).items():
            self[key] = value

    # Whole-map reads: the rules of a write with a region never make them (a flag over everything and a
    # snapshot of everything do: they touch the whole store), so they read every key of the part first.
    def _read_whole(self) -> None:
        if not self.whole:
            if self.reader is None:
                raise NeedMore(self.part, WHOLE)
            self.reader.read(self.part, WHOLE)

    def __iter__(self) -> Iterator[Any]:
        self._read_whole()
        return super().__iter__()

    def __len__(self) -> int:
        self._read_whole()
        return super().__len__()

    def keys(self) -> Any:
        self._read_whole()
        return super().keys()

    def values(self) -> Any:
        self._read_whole()
        return super().values()

    def items(self) -> Any:
        self._read_whole()
        return super().items()


class DerivedMap(PartialMap):
    """A map whose value at a key is worked out the first time the key is read (`derive` gives whether the
    key is present, and its value; it reads what it needs through the state's reader), then held as any other."""

    def __init__(self, part: str, derive: Callable[[Any], tuple[bool, Any]]) -> None:
        super().__init__(part, None)
        self._derive = derive

    def _check(self, key: Any) -> None:
        if key not in self.known:
            present, value = self._derive(key)
            self.known.add(key)
            if present:
                dict.__setitem__(self, key, value)


def known_empty(mapping: Mapping[Any, Any], key: Any) -> None:
    """A rule that just made `key` (a belief) says the part `mapping` holds nothing at it yet: a partial map knows
    so without reading the store; a whole state's dict, which holds every key, has nothing to do."""
    if isinstance(mapping, PartialMap):
        mapping.absorb({key: None})


def answer_each(answer: Answer, part: str, keys: Iterable[Any]) -> dict[str, dict[Any, Any]]:
    """`answer` at each of these keys, merged into one answer (an `AnswerMany` from an `Answer`)."""
    found: dict[str, dict[Any, Any]] = {}
    for key in keys:
        for other, entries in answer(part, key).items():
            found.setdefault(other, {}).update(entries)
    return found


def read_ahead(mapping: Mapping[Any, Any], keys: Iterable[Any]) -> None:
    """A rule about to read `mapping` at each of `keys` in turn says so first: a partial map reads the keys it
    does not know yet in one round trip, not one each; a map that holds every key (a whole state's dict) has
    nothing to do. What the rule then reads is the same either way."""
    if isinstance(mapping, PartialMap):
        mapping.read_ahead(keys)


@dataclass
class Fetched:
    """What has been fetched of the store so far, part by part (a key with None: known to be absent)."""

    parts: dict[str, dict[Any, Any]] = field(default_factory=dict)

    def add(self, part: str, found: Mapping[Any, Any]) -> None:
        self.parts.setdefault(part, {}).update(found)

    def clear(self) -> None:
        """Forget what was fetched: only for a reader whose every target is registered already (they keep what
        they were given, and absorb no key twice), so nothing reads it again."""
        self.parts.clear()

    def count(self, part: str) -> int:
        return len(self.parts.get(part, {}))
